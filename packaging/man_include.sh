#!/bin/sh
# Writes help2man's include file: packaging/nmt.h2m, the README's "Exit codes" and "Environment" tables
# (so the man page and the README cannot disagree), then one section per command with its --help
# verbatim, so `man nmt` documents every flag. Usage: man_include.sh NMT_BINARY NMT_H2M OUTPUT [README]
set -eu
nmt=$1
readme=${4:-$(dirname "$2")/../README.md}

# The rows of the README table under the heading $1 as roff .TP entries: first cell the tag, the rest
# the text, `code` marks dropped, an escaped \| kept as |.
table() {
  awk -v heading="$1" '
    $0 == heading { on = 1; next }
    on && /^\|/ { rows++
      if (rows <= 2) next  # the header and the |---| line
      line = $0; gsub(/\\\|/, "\001", line); gsub(/`/, "", line)
      n = split(line, cell, "|")
      text = cell[3]; for (i = 4; i < n; i++) text = text "|" cell[i]
      gsub(/^ +| +$/, "", cell[2]); gsub(/^ +| +$/, "", text); gsub(/\001/, "|", text)
      print ".TP"; print cell[2]; print text; next }
    on && rows > 0 { exit }' "$readme" | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/" -e 's/^\\&\.TP$/.TP/'
}

{
  printf '[EXIT STATUS]\n'
  table '### Exit codes'
  printf '\n[ENVIRONMENT]\n'
  table '### Environment'
  printf '\n'
  cat "$2"
  # Every command `nmt --help` lists, so a new one cannot be left out.
  for command in $("$nmt" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}'); do
    printf '\n[COMMAND %s]\n.nf\n' "$(echo "$command" | tr a-z A-Z)"
    # roff: a backslash is \e; a line starting with . or ' needs \& in front.
    "$nmt" help "$command" | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    printf '.fi\n'
  done
} > "$3"
