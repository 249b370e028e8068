#!/usr/bin/env bash
# Hostile-input cases that used to hang or take gigabytes, each run under a 1.5 GB address-space limit
# and a timeout; fails if any case crashes, hangs, runs out of memory or exits with another code.
# Usage: tests/stress/run.sh BUILD_DIR
set -uo pipefail
build=${1:?usage: run.sh BUILD_DIR}
nmt=$(cd "$build" && pwd)/nmt
here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/opus/model"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# case NAME EXPECTED_EXIT COMMAND [MESSAGE] [SECONDS]: runs COMMAND (a shell string) limited to 1.5 GB
# and SECONDS (60); passes when it exits EXPECTED_EXIT and, if given, stderr contains MESSAGE.
case_() {
  local name=$1 expected=$2 command=$3 message=${4:-} seconds=${5:-60} code
  (ulimit -v 1500000; timeout "$seconds" bash -c "$command") >"$work/out" 2>"$work/err"
  code=$?
  if [[ $code -ne $expected ]]; then
    echo "FAIL $name: exit $code, expected $expected (124 = timeout, >128 = signal): $(head -c 300 "$work/err")"
    failed=1
  elif [[ -n $message ]] && ! grep -qF -- "$message" "$work/err"; then
    echo "FAIL $name: exit $code, but stderr lacks '$message': $(head -c 300 "$work/err")"
    failed=1
  else
    echo "ok   $name (exit $code): $(grep -v '^nmt: [0-9]* file' "$work/err" | head -n 1 | head -c 160)"
  fi
}

# lines_out N: the last case wrote exactly N lines.
lines_out() {
  local got
  got=$(wc -l <"$work/out")
  if [[ $got -ne $1 ]]; then
    echo "FAIL   ... wrote $got lines, expected $1"
    failed=1
  fi
}

# swap_during_run TREE_FILE KIND: in the background, once directory mode has started writing (so its
# walk is over), replaces TREE_FILE with KIND (a FIFO, or a symlink to a private /dev/urandom node).
swap_during_run() {
  local file=$1 kind=$2
  (
    for _ in $(seq 600); do
      [[ -n $(ls -A "$work/dir-out" 2>/dev/null) ]] && break
      sleep 0.05
    done
    rm -f "$file"
    if [[ $kind == fifo ]]; then mkfifo "$file"; else ln -s "$work/urandom" "$file"; fi
  ) &
}

fresh_model() { rm -rf "$work/m" && cp -r "$fixture" "$work/m"; }

for file in model.json weights.bin source.spm vocab.json; do
  fresh_model && rm "$work/m/$file" && mkfifo "$work/m/$file"
  case_ "FIFO as $file" 2 "echo hello | '$nmt' translate -m '$work/m' --threads 1" "$file"
  fresh_model && rm "$work/m/$file" && mkdir "$work/m/$file"
  case_ "directory as $file" 2 "echo hello | '$nmt' translate -m '$work/m' --threads 1" "$file"
done

fresh_model && rm -f "$work/zero" && mknod "$work/zero" c 1 5 && rm "$work/m/source.spm" &&
  ln -s "$work/zero" "$work/m/source.spm"
case_ "SentencePiece model -> private /dev/zero node" 2 "echo hello | '$nmt' translate -m '$work/m' --threads 1" \
  "source.spm: SentencePiece model is a character device"

fresh_model && python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('[' + '1,' * (100 << 20) + '1]')" "$work/m/model.json"
case_ "200 MB model.json of numbers" 2 "echo hello | '$nmt' translate -m '$work/m' --threads 1" \
  "model.json: model description is larger than"

fresh_model
case_ "standard input closed" 0 "'$nmt' translate -m '$work/m' --threads 1 <&-"
lines_out 0

mkdir -p "$work/npz" && cp "$here/../fixtures/opus/marian/"{decoder.yml,vocab.yml,source.spm,target.spm} "$work/npz/" &&
  python3 -c "
import struct, sys, zipfile
data = bytearray(open(sys.argv[1], 'rb').read())
info = [i for i in zipfile.ZipFile(sys.argv[1]).infolist() if not i.filename.startswith('special')][0]
struct.pack_into('<I', data, info.header_offset + 22, 0xFFFFFFF0)  # local header: uncompressed size
at = data.find(b'PK\x01\x02')
while data[at + 46:at + 46 + len(info.filename)] != info.filename.encode():
    at = data.find(b'PK\x01\x02', at + 4)
struct.pack_into('<I', data, at + 24, 0xFFFFFFF0)  # central directory: uncompressed size
open(sys.argv[2], 'wb').write(data)" "$here/../fixtures/opus/marian/model.npz" "$work/npz/model.npz"
case_ ".npz member claiming 4 GB" 2 "'$nmt' convert --from marian-npz '$work/npz' -o '$work/npz-out'" "model.npz"

# A 1.5 GiB deflate bomb as an .npz member (1.7 MB archive): its .npy header's shape is checked against the
# member's size before the data is inflated.
python3 -c "
import sys, zipfile
src = zipfile.ZipFile(sys.argv[1])
with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as out:
    for info in src.infolist():
        data = src.read(info)
        if info.filename != 'Wemb.npy':
            out.writestr(info.filename, data)
            continue
        with out.open('Wemb.npy', 'w') as f:
            f.write(data)
            for _ in range(24):
                f.write(bytes(64 << 20))" "$here/../fixtures/opus/marian/model.npz" "$work/npz/model.npz"
case_ ".npz member inflating to 1.5 GiB" 2 "'$nmt' convert --from marian-npz '$work/npz' -o '$work/npz-out'" \
  "Wemb.npy: shape (337, 32) <f4 needs 43136 data bytes, the array has 1610655872"
cp "$here/../fixtures/opus/marian/model.npz" "$work/npz/model.npz"

# A 98 MB safetensors header of nested brackets: refused by its length, before any parsing.
rm -rf "$work/hf-big" && cp -r "$here/../fixtures/opus/hf" "$work/hf-big" && python3 -c "
import struct, sys
header = b'{\"a\": ' + b'[' * (49 << 20) + b']' * (49 << 20) + b'}'
open(sys.argv[1], 'wb').write(struct.pack('<Q', len(header)) + header)" "$work/hf-big/model.safetensors"
case_ "98 MB safetensors header" 2 "'$nmt' convert --from hf-marian '$work/hf-big' -o '$work/hf-big-out'" \
  "model.safetensors: header length 102760455 is larger than the 1 MiB limit"

# JSON lines: a 60 MB line of nested brackets and a 4 MB one are malformed lines (exit 1), not gigabytes.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('[' * (60 << 20) + '\\n' + '[' * ((4 << 20) - 16) + '\\n{\"text\": \"A dog.\"}\\n')" "$work/deep.jsonl"
case_ "JSON lines of 60 MB and 4 MB nested brackets" 1 \
  "'$nmt' translate -m '$fixture' --threads 1 --input-format jsonl -i '$work/deep.jsonl'" \
  "deep.jsonl:2: JSON nested more than 64 levels deep"
lines_out 3

# Converter inputs: a FIFO as config.json (hf-marian) or decoder.yml (marian-npz) is refused, not read.
rm -rf "$work/hf" && cp -r "$here/../fixtures/opus/hf" "$work/hf" && rm "$work/hf/config.json" &&
  mkfifo "$work/hf/config.json"
case_ "FIFO as config.json (convert)" 2 "'$nmt' convert --from hf-marian '$work/hf' -o '$work/hf-out'" \
  "config.json: model configuration is a FIFO"
rm -f "$work/npz/decoder.yml" && mkfifo "$work/npz/decoder.yml"
case_ "FIFO as decoder.yml (convert)" 2 "'$nmt' convert --from marian-npz '$work/npz' -o '$work/npz-out2'" \
  "decoder.yml: decoder configuration is a FIFO"

# Directory mode: a file swapped for a FIFO, or for a symlink to a random-bytes device, between the walk
# and its turn is a failure naming it (exit 1), never a hang or an endless read.
rm -f "$work/urandom" && mknod "$work/urandom" c 1 9
for kind in fifo urandom; do
  rm -rf "$work/dir-in" "$work/dir-out" && mkdir -p "$work/dir-in"
  for i in $(seq 3000); do echo "A dog runs in the park number $i."; done >"$work/dir-in/a.txt"
  echo "A cat." >"$work/dir-in/b.txt"
  swap_during_run "$work/dir-in/b.txt" $kind
  case_ "directory mode: b.txt swapped for $kind after the walk" 1 \
    "'$nmt' translate -m '$fixture' --threads 1 --input-dir '$work/dir-in' --output-dir '$work/dir-out'" \
    "b.txt"
  wait
done

# A 2 MB line without spaces or punctuation: cut into pieces before SentencePiece sees it; one line out.
# Its ~10,000 segments take seconds of CPU even at --max-length 2, longer on a shared machine.
head -c 2000000 /dev/zero | tr '\0' a >"$work/long.txt" && echo >>"$work/long.txt"
case_ "2 MB line without spaces" 0 \
  "'$nmt' translate -m '$fixture' --threads 1 -b 1 --max-length 2 -i '$work/long.txt'" \
  "translated in pieces" 300
lines_out 1

# -b 128 --batch-size 4096: the batch is cut to what the address space allows, with one warning.
for i in $(seq 40); do echo "A man in a blue shirt is standing on a ladder number $i."; done >"$work/many.txt"
case_ "-b 128 --batch-size 4096" 0 \
  "'$nmt' translate -m '$fixture' --threads 1 -b 128 --batch-size 4096 -i '$work/many.txt'" \
  "--batch-size 4096 reduced to" 300
lines_out 40
case_ "-b 128 on 2 threads with --max-memory 16M refused" 64 \
  "'$nmt' translate -m '$fixture' --threads 2 -b 128 --max-memory 16M -i '$work/many.txt'" \
  "is too small for beam 128"

# Directory mode: a file that needs more memory than there is (10 million one-word sentences on one line,
# 200 KB compressed) fails alone with "not enough memory (limit N MB)"; the files after it are translated
# and the summary counts it.
rm -rf "$work/oom-in" "$work/oom-out" && mkdir -p "$work/oom-in"
python3 -c "
import gzip, sys
gzip.open(sys.argv[1], 'wb', 1).write(b'Go. ' * (10 << 20) + b'\\n')" "$work/oom-in/big.txt.gz"
echo "A dog runs." >"$work/oom-in/a.txt" && echo "A cat sleeps." >"$work/oom-in/z.txt"
(ulimit -v 700000; timeout 120 "$nmt" translate --threads 1 --input-dir "$work/oom-in" --output-dir "$work/oom-out") \
  >"$work/out" 2>"$work/err"
code=$?
if [[ $code -eq 1 ]] && grep -qF "big.txt.gz: not enough memory (limit 683 MB)" "$work/err" &&
  grep -qF "2 file(s) translated, 0 already done, 0 retranslated (stale), 1 failed" "$work/err" &&
  [[ -s $work/oom-out/a.txt && -s $work/oom-out/z.txt ]]; then
  echo "ok   directory mode: one file out of memory fails alone (exit 1)"
else
  echo "FAIL directory mode: one file out of memory: exit $code: $(head -c 400 "$work/err")"
  failed=1
fi

# Under a small address space every command that loads a model ends within seconds: it succeeds, says
# "not enough memory (limit N MB)" and exits 1, or (translate) refuses a beam that cannot fit, exit 64. OpenBLAS loads only for a product, with one thread, and
# only when its ~130 MB buffer fits (core/blas_library.h); it used to hang at 100% CPU below ~220 MB.
bundled="$here/../../data/multi30k-en-de"
for mb in 150 200 250 300 400; do
  for command in "echo 'A dog runs.' | '$nmt' translate -m '$bundled'" \
    "echo 'A dog runs.' | NMT_CPU=blas '$nmt' translate -m '$bundled'" \
    "'$nmt' info -m '$bundled'" "'$nmt' attention -m '$bundled' --format json 'A dog runs.'" \
    "'$nmt' attention -m '$bundled' 'A dog runs.'"; do
    started=$SECONDS
    (ulimit -v $((mb * 1024)); timeout 60 bash -c "$command") >"$work/out" 2>"$work/err"
    code=$?
    label=${command//"'$nmt'"/nmt}
    label=${label//"'$bundled'"/MODEL}
    if [[ $code -eq 0 ]] || { [[ $code -eq 1 ]] && grep -qF "not enough memory (limit $mb MB)" "$work/err"; } ||
      { [[ $code -eq 64 ]] && grep -qF "address-space limit (ulimit -v) is too small" "$work/err"; }; then
      echo "ok   ulimit -v ${mb} MB, exit $code in $((SECONDS - started)) s: $label"
    else
      echo "FAIL ulimit -v ${mb} MB: exit $code (124 = timeout): $label: $(head -c 300 "$work/err")"
      failed=1
    fi
  done
done

exit $failed
