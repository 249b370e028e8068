#!/bin/sh
# `cmake --install BUILD --prefix TMP` puts a working nmt, its model, the man page and bash completion
# under TMP (ctest runs this; `make install PREFIX=...` does the same after building only nmt).
set -eu
build=$1
prefix=$(mktemp -d "${TMPDIR:-/tmp}/nmt_install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
test -x "$prefix/bin/nmt"
test -s "$prefix/share/man/man1/nmt.1"
grep -q -- '--beam-size' "$prefix/share/man/man1/nmt.1"
# Every command, the environment and the exit codes (the README's tables).
for wanted in 'COMMAND ATTENTION' 'COMMAND CONVERT' NMT_CPU NMT_MODEL 'jsonl met malformed lines' 'temporary files removed'; do
  grep -q -- "$wanted" "$prefix/share/man/man1/nmt.1" || { echo "nmt.1 lacks '$wanted'"; exit 1; }
done
bash -n "$prefix/share/bash-completion/completions/nmt"
test -f "$prefix/share/nmt/general-en-de/model.json"
# The installed binary finds the installed model, not the source tree's.
out=$(echo "A dog runs." | env -u NMT_MODEL "$prefix/bin/nmt" translate)
test -n "$out"
"$prefix/bin/nmt" info | grep -q "model: $prefix/bin/../share/nmt/general-en-de"
"$prefix/bin/nmt" --version | grep -q '^nmt .* (git '
# Every translate flag in --help is known to the completion script.
for flag in $("$prefix/bin/nmt" translate --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
  grep -q -- "$flag" "$prefix/share/bash-completion/completions/nmt" || { echo "completion lacks $flag"; exit 1; }
done
echo "install check passed"
