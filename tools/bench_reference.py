#!/usr/bin/python3
"""The PyTorch baseline for benchmarks: batched incremental decoding with tools/reference.py's model.

  /usr/bin/python3 tools/bench_reference.py MODEL_DIR --input FILE [--beam K] [--batch-size 32] \
      [--threads T] [--style hf|sorted] [--output OUT]

Both styles cache self-attention keys/values, compute cross-attention keys/values once per batch, run under
torch.inference_mode() with torch.set_num_threads(T), and give the same translations as nmt:

  hf      (default) what Hugging Face `generate` does for a user who translates a file in chunks of
          --batch-size lines: batches in input order; num_beams x batch rows from the first step (beams
          after the first start at -inf); the encoder output repeated per beam, so cross-attention K/V are
          projected and attended per row; a sentence that has finished keeps its rows (fed pad) until the
          whole batch is done.
  sorted  a stronger baseline than a Python user usually runs: sentences sorted by length, finished
          sentences dropped from the batch, one cross-attention K/V per sentence shared by its beams
          (tools/reference.py's translate_ids, the same tricks nmt uses).

Prints one JSON line: load_s, translate_s (tokenize + translate + detokenize), sentences, target_tokens
(pieces generated, EOS excluded), tokens_per_s, peak_rss_mb.
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


class FullBatchDecoder:
    """Runs every step on all batch x beams rows, as Hugging Face `generate` does, while the search (the
    reference's, unchanged) sees only its live rows: the rows of finished sentences are still computed (fed
    pad) and their results dropped. Slot s*K + b holds beam b of sentence s."""

    def __init__(self, model, enc_out, enc_mask, beams, pad_id):
        self.k, self.pad = beams, pad_id
        self.inner = ref.CachedDecoder(model, enc_out.repeat_interleave(beams, 0),
                                       enc_mask.repeat_interleave(beams, 0))
        self.n_slots = enc_out.shape[0] * beams
        self.all_slots = list(range(self.n_slots))
        self.slot_of_row, self.sentence_of_row = [], []

    def start(self, n_sentences):
        self.inner.start(n_sentences * self.k)
        self.slot_of_row = [s * self.k for s in range(n_sentences)]

    def step(self, tokens, sentence_of_row, position):
        self.sentence_of_row = list(sentence_of_row)
        feed = [tokens[0] if position == 0 else self.pad] * self.n_slots   # step 0: every beam starts
        for slot, tok in zip(self.slot_of_row, tokens):
            feed[slot] = tok
        logits = self.inner.step(feed, self.all_slots, position)
        return logits.index_select(0, torch.as_tensor(self.slot_of_row, dtype=torch.long))

    def select_rows(self, src_rows):
        perm = list(self.all_slots)
        slots, beam_of = [], {}
        for src in src_rows:
            s = self.sentence_of_row[src]
            b = beam_of.get(s, 0)
            beam_of[s] = b + 1
            slots.append(s * self.k + b)
            perm[s * self.k + b] = self.slot_of_row[src]
        if perm != self.all_slots:
            self.inner.select_rows(perm)
        self.slot_of_row = slots


def translate_hf_style(model, sources, opts, decoding, batch_size):
    """Batches of consecutive sources, every row of a batch computed until the batch is done."""
    results = []
    max_positions = model.config["max_positions"]
    for b in range(0, len(sources), batch_size):
        batch = sources[b: b + batch_size]
        enc, mask = ref.encode_batch(model, batch)
        dec = FullBatchDecoder(model, enc, mask, opts.beam_size, model.tokens["pad"])
        results += ref.search(dec, [ref.max_generated(len(s), decoding, max_positions) for s in batch], opts)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", default=None, help="translations, one per input line")
    ap.add_argument("--beam", type=int, default=None, help="beam size (default: the model's)")
    ap.add_argument("--length-penalty", type=float, default=None)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--style", choices=("hf", "sorted"), default="hf", help="see the module docstring")
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
        if args.style == "hf":
            hyps = translate_hf_style(model, sources, opts, meta["decoding"], args.batch_size)
        else:
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
        "beam": opts.beam_size, "batch_size": args.batch_size, "threads": args.threads,
        "style": args.style}))


if __name__ == "__main__":
    main()
