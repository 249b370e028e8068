#!/bin/sh
# docs/cli-reference.md is what `nmt help --markdown` prints today, so it cannot drift from --help.
# Usage: cli_reference_check.sh NMT_BINARY DOCS_CLI_REFERENCE_MD
set -eu
generated=$(mktemp "${TMPDIR:-/tmp}/nmt_cli_reference.XXXXXX")
trap 'rm -f "$generated"' EXIT
"$1" help --markdown > "$generated"
if ! diff -u "$2" "$generated"; then
  echo "$2 differs from \`nmt help --markdown\`: regenerate it with: build/nmt help --markdown > docs/cli-reference.md"
  exit 1
fi
echo "cli reference current"
