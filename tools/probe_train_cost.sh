#!/bin/bash
# Relative training cost of candidate architectures for the general model (data/general-en-de/README.md).
#
#   tools/probe_train_cost.sh [OUT_DIR]        (default build/probe; data from ../shared)
#
# Each candidate trains 8 updates at one thread under nice 19 on the same batches; the cost is the CPU seconds
# of updates 3-8 (after the warm-up). CPU seconds of a one-thread run hardly depend on how busy the machine is,
# where wall-clock seconds do. Each train.log also records the pieces per source for that vocabulary.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/probe}
python=${PYTHON:-/usr/bin/python3}

probe() {
  local name=$1 vocab=$2; shift 2
  local dir=$out/$name
  rm -rf "$dir"; mkdir -p "$dir"
  # One SentencePiece run per vocabulary size: the same corpus gives the same model.
  [ -f "$out/spm$vocab.model" ] && cp "$out/spm$vocab.model" "$dir/spm.model"
  nice -n 19 "$python" tools/train.py --corpus general --out "$dir" --vocab "$vocab" --max-steps 8 \
    --bleu-every 0 --log-every 1 --threads 1 "$@" > "$dir/stdout" 2>&1
  cp -n "$dir/spm.model" "$out/spm$vocab.model"
  "$python" - "$dir/train.log" "$name" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rows = {int(m.group(1)): (int(m.group(2)), float(m.group(3))) for m in
        re.finditer(r"step (\d+) .*run_tokens (\d+) run_cpu_s (\S+)", text)}
params = re.search(r"params (\d+)", text).group(1)
(t0, c0), (t1, c1) = rows[2], rows[8]
print(f"{sys.argv[2]}: params {params}, updates 3-8: {t1 - t0} tgt tokens, {c1 - c0:.1f} CPU s, "
      f"{(t1 - t0) / (c1 - c0):.0f} tgt tok/CPU s, {(c1 - c0) / 6:.2f} CPU s/update", flush=True)
PY
}

mkdir -p "$out"
A="--d-model 256 --heads 4 --enc-layers 3 --dec-layers 3 --ffn 1024 --max-tokens 4000"
B="--d-model 384 --heads 6 --enc-layers 4 --dec-layers 4 --ffn 1536 --max-tokens 4000"
probe A-d256-3+3-v8k-bf16 8000 $A --bf16
probe B-d384-4+4-v8k-bf16 8000 $B --bf16
probe B-d384-4+4-v8k-fp32 8000 $B
probe B-d384-4+4-v16k-bf16 16000 $B --bf16
