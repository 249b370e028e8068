#!/usr/bin/python3
"""The PyTorch baseline for benchmarks: batched incremental decoding with tools/reference.py's model.

  /usr/bin/python3 tools/bench_reference.py MODEL_DIR --input FILE [--beam K] [--batch-size 32] \
      [--threads T] [--output OUT]

Sentences are sorted by length and translated in batches; self-attention keys/values are cached, cross-
attention keys/values computed once per batch (beams of a sentence share them), torch.inference_mode(),
torch.set_num_threads(T). Prints one JSON line: load_s, translate_s (tokenize + translate + detokenize),
sentences, target_tokens (pieces generated, EOS excluded), tokens_per_s, peak_rss_mb.
"""
import argparse
import ctypes
import json
import os
import resource
import sys
import time

# Debian's torch runs elementwise ops on libgomp threads and GEMMs on OpenBLAS's own pthreads. By default
# idle libgomp workers spin after each parallel region, starving OpenBLAS's threads: --threads 2 ran ~10x
# slower than --threads 1 on a 2-core machine. Passive waiting has to be chosen before libgomp starts.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref  # noqa: E402


def set_openblas_threads(n):
    """Debian's torch runs its GEMMs in the system OpenBLAS (pthreads build), which torch.set_num_threads
    does not reach: without this, --threads 1 would still multiply on every core."""
    try:
        ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(n)
    except (OSError, AttributeError):
        pass  # another BLAS: torch.set_num_threads covers MKL; nothing else to do


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", default=None, help="translations, one per input line")
    ap.add_argument("--beam", type=int, default=None, help="beam size (default: the model's)")
    ap.add_argument("--length-penalty", type=float, default=None)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    set_openblas_threads(args.threads)

    t0 = time.perf_counter()
    model, meta = ref.Model.load(args.model_dir)
    tokenizer = ref.Tokenizer(args.model_dir, meta)
    opts = ref.search_options(meta, args.beam, args.length_penalty)
    load_s = time.perf_counter() - t0

    with open(args.input, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]

    t1 = time.perf_counter()
    todo = [i for i, line in enumerate(lines) if line.strip()]
    sources = [tokenizer.encode(lines[i]) for i in todo]
    with torch.inference_mode():
        hyps = ref.translate_ids(model, sources, opts, meta["decoding"], batch_size=args.batch_size)
    out = [""] * len(lines)
    target_tokens = 0
    for i, h in zip(todo, hyps):
        out[i] = tokenizer.decode(h[0].tokens)
        target_tokens += len(h[0].tokens)
    translate_s = time.perf_counter() - t1

    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in out))
    print(json.dumps({
        "load_s": round(load_s, 4), "translate_s": round(translate_s, 4), "sentences": len(lines),
        "target_tokens": target_tokens, "tokens_per_s": round(target_tokens / max(translate_s, 1e-9), 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "beam": opts.beam_size, "batch_size": args.batch_size, "threads": args.threads}))


if __name__ == "__main__":
    main()
