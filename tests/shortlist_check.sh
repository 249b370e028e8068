#!/bin/sh
# The shortlist end to end on the bundled model: `nmt shortlist` builds one; --shortlist off (and auto
# without a file) gives main's output byte for byte (the checked-in expected file); on keeps every line;
# a corrupt file is refused with one line naming it, unless the shortlist is off; a directory translated
# under auto is translated again once the model folder gains a shortlist (the resume key sees the file).
# The shortlist is built from Multi30k val (../shared/data/multi30k); without it the test is skipped.
# Usage: shortlist_check.sh NMT_BINARY MODEL_DIR INPUT EXPECTED_FULL_VOCABULARY_OUTPUT MULTI30K_DIR
set -eu
nmt=$1 model=$2 source=$3 expected=$4 multi30k=$5
if [ ! -f "$multi30k/val.en.gz" ] || [ ! -f "$multi30k/val.de.gz" ]; then
  echo "skipped: no Multi30k val at $multi30k to build a shortlist from"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/nmt_shortlist.XXXXXX")
trap 'rm -rf "$work"' EXIT
gzip -dc "$multi30k/val.en.gz" > "$work/val.en"
gzip -dc "$multi30k/val.de.gz" > "$work/val.de"
cp -r "$model" "$work/model"
rm -f "$work/model/shortlist.bin"
translate() { "$nmt" translate -q -m "$work/model" -b 4 --threads 2 "$@" < "$source"; }
fail() { echo "FAIL: $*"; exit 1; }

translate > "$work/auto_without_file.txt"
cmp "$work/auto_without_file.txt" "$expected" || fail "--shortlist auto without a file changed the output"
if translate --shortlist on > /dev/null 2> "$work/err"; then fail "--shortlist on without a file succeeded"; fi
grep -q "shortlist.bin" "$work/err" || fail "the missing file is not named: $(cat "$work/err")"

mkdir "$work/tree"
head -n 3 "$source" > "$work/tree/a.txt"
tree() { "$nmt" translate -m "$work/model" --input-dir "$work/tree" --output-dir "$work/tree_out" 2>&1; }
tree > "$work/log" && grep -q "1 file(s) translated" "$work/log" || fail "directory run: $(cat "$work/log")"

"$nmt" shortlist -m "$work/model" --source "$work/val.en" --target "$work/val.de" 2> "$work/err" || fail "$(cat "$work/err")"
test -s "$work/model/shortlist.bin" || fail "nmt shortlist wrote no shortlist.bin"
translate --shortlist off > "$work/off.txt"
cmp "$work/off.txt" "$expected" || fail "--shortlist off changed the output"
translate > "$work/auto.txt"
tree > "$work/log" && grep -q "0 already done, 1 retranslated" "$work/log" ||
  fail "a directory rerun under auto ignored the new shortlist: $(cat "$work/log")"
translate --shortlist on > "$work/on.txt"
cmp "$work/auto.txt" "$work/on.txt" || fail "auto with a file is not on"
test "$(wc -l < "$work/on.txt")" -eq "$(wc -l < "$source")" || fail "--shortlist on lost lines"

head -c 100 "$work/model/shortlist.bin" > "$work/short" && mv "$work/short" "$work/model/shortlist.bin"
status=0
translate --shortlist on > /dev/null 2> "$work/err" || status=$?
test "$status" -eq 2 || fail "a truncated shortlist gave exit $status, not 2"
test "$(wc -l < "$work/err")" -eq 1 || fail "not one line: $(cat "$work/err")"
grep -q "$work/model/shortlist.bin" "$work/err" || fail "the file is not named: $(cat "$work/err")"
translate --shortlist off > "$work/off_corrupt.txt"
cmp "$work/off_corrupt.txt" "$expected" || fail "--shortlist off read the corrupt file"
echo "shortlist checks passed"
