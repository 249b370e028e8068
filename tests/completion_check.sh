#!/bin/bash
# The bash completion in a clean shell (bash --norc): plain, or with the bash-completion package loaded
# first (exit 77, skipped, when it is not installed); with NMT, also that every command and every flag its
# help lists is offered. Usage: completion_check.sh SCRIPT plain|bash-completion [NMT]
set -u
script=$(realpath "$1") mode=$2 nmt=${3:-}
library=/usr/share/bash-completion/bash_completion
if [[ $mode == bash-completion && ! -r $library ]]; then
  echo "skipped: $library not installed (apt-get install bash-completion)"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/models" && touch "$dir/in.txt"
failed=0
# complete WORDS...: COMPREPLY for the last word, one per line (stderr kept: no "command not found").
complete_words() {
  (cd "$dir" && bash --norc --noprofile -c '
    [[ $1 == bash-completion ]] && source '"$library"'
    source "$2"
    shift 2
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _nmt nmt "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$mode" "$script" "$@" 2>&1)
}
expect() {  # expect "WANTED" WORDS...: the completions, space-joined, sorted
  local wanted=$1
  shift
  local got
  got=$(complete_words "$@" | sort | tr '\n' ' ' | sed 's/ $//')
  if [[ $got != "$wanted" ]]; then
    echo "FAIL ($mode): nmt ${*:2} -> '$got', wanted '$wanted'"
    failed=1
  fi
}
expect "translate" nmt tr
expect "--max-batch-tokens --max-length --max-length-a --max-length-b --max-memory --max-sentence-tokens" nmt translate --max
expect "" nmt translate -b ""
expect "" nmt translate --seed ""
expect "" nmt attention --layer ""
expect "" nmt serve --port ""
expect "" nmt translate --from ""
expect "hf-marian" nmt convert --from hf
expect "--max-batch-tokens --max-body --max-chars --max-connections --max-items --max-models-memory --max-queue" nmt serve --max
expect "" nmt convert --source-lang ""
expect "--source-lang --source-spm --source-vocab" nmt convert --source
expect "json svg" nmt attention --format ""
expect "in.txt" nmt translate -i in
expect "models" nmt translate -m mod
expect "models" nmt info mod
expect "install list remove verify" nmt models ""
expect "--force" nmt models install --fo
expect "" nmt models install --hub ""
expect "models" nmt models install mod
if [[ -n $nmt ]]; then
  # The commands of nmt's command table (app/main.cc), as its help lists them: all offered, and nothing else.
  commands=$("$nmt" help | awk '/^Subcommands:/ {on = 1; next} on && /^[^ ]/ {on = 0} on && /^  [a-z]/ {print $1}')
  expect "$(printf '%s\n' $commands help -h --help --version | sort | tr '\n' ' ' | sed 's/ $//')" nmt ""
  for command in $commands; do
    [[ $command == models ]] && continue  # its subcommands: below
    # Option lines of the help: "  -b,--beam-size,--beam N ...": the first field's names.
    for flag in $("$nmt" help "$command" | awk '/^ +-/ {print $1}' | tr ',' ' '); do
      got=$(complete_words nmt "$command" "$flag" | grep -cxF -- "$flag")
      if [[ $got -ne 1 ]]; then
        echo "FAIL ($mode): nmt $command $flag: the flag in its help is not offered"
        failed=1
      fi
    done
  done
  for flag in $("$nmt" help models | awk '/^ +-/ {print $1}' | tr ',' ' ') \
    $("$nmt" models install --help | awk '/^ +-/ {print $1}' | tr ',' ' '); do
    [[ $flag == --version ]] && continue
    got=$(complete_words nmt models install "$flag" | grep -cxF -- "$flag")
    if [[ $got -ne 1 ]]; then
      echo "FAIL ($mode): nmt models install $flag: the flag in its help is not offered"
      failed=1
    fi
  done
fi
exit $failed
