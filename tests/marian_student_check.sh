#!/bin/sh
# A Marian SSRU student (tests/fixtures/marian-ssru): converted from its .npz, it translates the first 300
# lines of Multi30k's test set as marian-decoder did (the checked-in outputs), greedy and beam 4, without
# and with Marian's binary lexical shortlist, on at least 99% of the lines. Marian's decoding defaults come
# from the conversion. marian-decoder read one sentence per batch, and a shortlist keeps the pieces of
# the whole batch's sources, so the shortlist runs take --batch-size 1.
# Usage: marian_student_check.sh NMT_BINARY FIXTURE_DIR TEST_SET_GZ
set -eu
nmt=$1 fixture=$2 input=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/nmt_student.XXXXXX")
trap 'rm -rf "$work"' EXIT
gzip -dc "$input" | head -n 300 > "$work/test.en"
"$nmt" convert --from marian-npz "$fixture" --npz "$fixture/model.npz" --vocab "$fixture/vocab.ende.spm" \
  --source-lang en --target-lang de --dtype f32 -o "$work/model" > /dev/null
"$nmt" convert --from marian-npz "$fixture" --npz "$fixture/model.npz" --vocab "$fixture/vocab.ende.spm" \
  --shortlist "$fixture/lex.50.50.ende.s2t.bin" --source-lang en --target-lang de --dtype f32 \
  -o "$work/model-shortlist" > /dev/null
[ -f "$work/model-shortlist/shortlist.bin" ] || { echo "FAIL: no shortlist.bin written"; exit 1; }
status=0
for run in greedy:1:model beam4:4:model greedy-shortlist:1:model-shortlist beam4-shortlist:4:model-shortlist; do
  name=${run%%:*} rest=${run#*:}
  beam=${rest%%:*} model=${rest#*:}
  "$nmt" translate -q -m "$work/$model" -b "$beam" --batch-size 1 < "$work/test.en" > "$work/$name.de"
  equal=$(paste -d '\t' "$work/$name.de" "$fixture/marian-$name.de" | awk -F '\t' '$1 == $2 { n++ } END { print n + 0 }')
  total=$(wc -l < "$fixture/marian-$name.de")
  echo "$name: $equal of $total lines equal marian-decoder's"
  [ "$(wc -l < "$work/$name.de")" -eq "$total" ] || { echo "FAIL: $name: line counts differ"; status=1; }
  [ $((equal * 100)) -ge $((total * 99)) ] || { echo "FAIL: $name: under 99% of the lines"; status=1; }
done
exit $status
