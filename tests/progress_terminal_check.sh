#!/bin/bash
# Progress on a real terminal (a tmux pane, captured every 0.1 s): `nmt translate -i FILE -o OUT` shows
# progress within about 2 s of the model loading and moves while the first read window is translated,
# ending on one final line; with typed input on the same terminal there is no progress at all, only a
# one-line hint that nmt reads standard input.
# Usage: progress_terminal_check.sh NMT MODEL_DIR. Exit 77 (ctest: skipped) when tmux is missing.
set -euo pipefail
nmt=$1
model=$2
if ! command -v tmux > /dev/null; then
  echo "SKIPPED: tmux is not installed (apt-get install tmux)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/nmt_progress.XXXXXX")
# Servers of our own, one per case (a new server on a socket just killed may die with the old one); the
# user's sessions are never touched.
socket="$work/first.socket"
trap 'for s in "$work"/*.socket; do tmux -S "$s" kill-server 2> /dev/null || true; done; rm -rf "$work"' EXIT
unset TMUX

sentences=("A man rides a bike down the street." "Two dogs play in the snow."
  "A woman in a red coat reads a book on a bench." "Children are playing soccer in a park.")
# Sixty batches of 8: room for the bar to move even when a fast CPU translates them in a second or two.
lines=480
for i in $(seq 0 $((lines - 1))); do echo "${sentences[i % 4]}"; done > "$work/in.txt"

now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }  # bash 5
pane() { tmux -S "$socket" capture-pane -p -t nmt; }

# 1. A file in, a file out: progress appears soon and moves.
tmux -S "$socket" new-session -d -s nmt -x 150 -y 10 \
  "'$nmt' translate -m '$model' --threads 1 --batch-size 8 -i '$work/in.txt' -o '$work/out.txt'; echo status \$?; sleep 600"
start=$(now_ms)
first=""
seen=()
final=""
# A sanitizer build on a busy machine is many times slower than a release build: the limit is generous.
limit_s=${NMT_PROGRESS_LIMIT_S:-400}
while (($(now_ms) - start < limit_s * 1000)); do
  screen=$(pane)
  if grep -q '^status ' <<< "$screen"; then
    final=$screen
    break
  fi
  if bar=$(grep -oE '[0-9.]+/[0-9.]+ [kMG]?B \([0-9]+%\)' <<< "$screen" | tail -1); then
    [[ -z $first ]] && first=$(($(now_ms) - start))
    [[ " ${seen[*]} " == *" $bar "* ]] || seen+=("$bar")
  fi
  sleep 0.1
done
echo "first progress after ${first:-never} ms (model load included); distinct positions seen: ${#seen[@]}"
printf '  %s\n' "${seen[@]}"
echo "final screen:"
echo "$final" | sed '/^$/d; s/^/  /'
fail() {
  echo "FAILED: $*"
  exit 1
}
[[ -n $final ]] || fail "nmt did not finish within $limit_s s"
grep -q '^status 0$' <<< "$final" || fail "nmt failed"
[[ -n $first ]] || fail "no progress shown while translating"
((first <= 3000)) || fail "the first progress came after $first ms"
((${#seen[@]} >= 3)) || fail "progress moved through only ${#seen[@]} position(s)"
grep -qE "\\(100%\\)  $lines lines  [0-9]+ sentences" <<< "$final" || fail "no final line with 100% and $lines lines"
[[ $(wc -l < "$work/out.txt") -eq $lines ]] || fail "out.txt does not have $lines lines"
(($(grep -c 'B (' <<< "$final") == 1)) || fail "the final screen has more than one progress line"

# 2. Typed input: the terminal is the user's, no progress line may mix with what they type.
tmux -S "$socket" kill-server
socket="$work/second.socket"
tmux -S "$socket" new-session -d -s nmt -x 150 -y 10 \
  "'$nmt' translate -m '$model' --threads 1 -o '$work/typed.txt'; echo status \$?; sleep 60"
sleep 1
tmux -S "$socket" send-keys -t nmt "A dog runs." Enter
sleep 3
tmux -S "$socket" send-keys -t nmt C-d
for _ in $(seq 1 60); do
  screen=$(pane)
  grep -q '^status ' <<< "$screen" && break
  sleep 0.5
done
echo "typed-input screen:"
echo "$screen" | sed '/^$/d; s/^/  /'
grep -q '^status 0$' <<< "$screen" || fail "nmt with typed input did not finish well"
grep -q 'sentence' <<< "$screen" && fail "progress shown while the user types"
grep -q '^nmt: reading standard input; Ctrl-D to end' <<< "$screen" || fail "no hint that nmt reads the terminal"
[[ $(wc -l < "$work/typed.txt") -eq 1 ]] || fail "typed.txt does not have one line"
echo "progress terminal check passed"
