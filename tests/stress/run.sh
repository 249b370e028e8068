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

# case NAME EXPECTED_EXIT COMMAND...: runs COMMAND (a shell string) limited to 1.5 GB and 60 s.
case_() {
  local name=$1 expected=$2 command=$3 code
  (ulimit -v 1500000; timeout 60 bash -c "$command") >"$work/out" 2>"$work/err"
  code=$?
  if [[ $code -eq $expected ]]; then
    echo "ok   $name (exit $code): $(head -c 160 "$work/err" | head -n 1)"
  else
    echo "FAIL $name: exit $code, expected $expected (124 = timeout, >128 = signal): $(head -c 300 "$work/err")"
    failed=1
  fi
}

fresh_model() { rm -rf "$work/m" && cp -r "$fixture" "$work/m"; }

for file in model.json weights.bin source.spm vocab.json; do
  fresh_model && rm "$work/m/$file" && mkfifo "$work/m/$file"
  case_ "FIFO as $file" 2 "echo hello | '$nmt' translate -m '$work/m' --threads 1"
  fresh_model && rm "$work/m/$file" && mkdir "$work/m/$file"
  case_ "directory as $file" 2 "echo hello | '$nmt' translate -m '$work/m' --threads 1"
done

fresh_model && rm -f "$work/zero" && mknod "$work/zero" c 1 5 && rm "$work/m/source.spm" &&
  ln -s "$work/zero" "$work/m/source.spm"
case_ "SentencePiece model -> private /dev/zero node" 2 "echo hello | '$nmt' translate -m '$work/m' --threads 1"

fresh_model && python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('[' + '1,' * (100 << 20) + '1]')" "$work/m/model.json"
case_ "200 MB model.json of numbers" 2 "echo hello | '$nmt' translate -m '$work/m' --threads 1"

fresh_model
case_ "standard input closed" 0 "'$nmt' translate -m '$work/m' --threads 1 <&-"

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
case_ ".npz member claiming 4 GB" 2 "'$nmt' convert --from marian-npz '$work/npz' -o '$work/npz-out'"

exit $failed
