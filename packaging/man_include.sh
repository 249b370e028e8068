#!/bin/sh
# Writes help2man's include file: packaging/nmt.h2m, then one section per command with its --help
# verbatim, so `man nmt` documents every flag. Usage: man_include.sh NMT_BINARY NMT_H2M OUTPUT
set -eu
nmt=$1
{
  cat "$2"
  for command in translate info convert; do
    printf '\n[COMMAND %s]\n.nf\n' "$(echo "$command" | tr a-z A-Z)"
    # roff: a backslash is \e; a line starting with . or ' needs \& in front.
    "$nmt" help "$command" | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    printf '.fi\n'
  done
} > "$3"
