#!/usr/bin/python3
"""PyTorch reference for the nmt engine: the Transformer of docs/checkpoint.md, greedy and beam search.

Written plainly (explicit q/k/v matmuls, additive masks, float32 everywhere) so that it can be read next
to the C++ engine. Every config option of checkpoint format v1 is supported. Search follows Hugging Face
`generate` (tools/reference_search.py has the exact rules). The model lives in tools/reference_model.py.

  /usr/bin/python3 tools/reference.py MODEL_DIR [--beam N] [--length-penalty X] < in.txt > out.txt
"""
import argparse
import json
import os
import sys

import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The model and the search live in their own modules; they are re-exported here because callers
# (tools/make_fixtures.py, tools/test_reference.py, tools/bench_reference.py) use them as reference.X.
from reference_model import CachedDecoder, Model, RecomputeDecoder, position_table  # noqa: E402,F401
from reference_search import (FinishedHypotheses, SearchOptions, beam_search,  # noqa: E402,F401
                              greedy_search, max_generated, search, search_options, top_candidates)


# ----------------------------------------------------------------------------------------------
# Text <-> ids

class Tokenizer:
    """SentencePiece segmentation; ids from the vocabulary JSON when the checkpoint names one."""

    def __init__(self, model_dir, meta):
        tk, self.tok = meta["tokenizer"], meta["tokens"]
        self.add_eos = tk["add_eos"]
        self.src_sp = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, tk["source_spm"]))
        self.tgt_sp = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, tk["target_spm"]))
        self.src_vocab = self._load_vocab(model_dir, tk["source_vocab"])
        tgt_vocab = self._load_vocab(model_dir, tk["target_vocab"])
        self.tgt_pieces = {i: p for p, i in tgt_vocab.items()} if tgt_vocab is not None else None

    @staticmethod
    def _load_vocab(model_dir, name):
        if name is None:
            return None
        with open(os.path.join(model_dir, name), encoding="utf-8") as f:
            return json.load(f)

    def encode(self, text):
        """Source ids (+ EOS when add_eos). With a vocab: pieces -> ids via the JSON, missing -> unk."""
        if self.src_vocab is not None:
            pieces = self.src_sp.encode(text, out_type=str)
            ids = [self.src_vocab.get(p, self.tok["unk"]) for p in pieces]
        else:
            ids = self.src_sp.encode(text)
        return ids + ([self.tok["eos"]] if self.add_eos else [])

    def decode(self, ids):
        """Drop eos/unk/pad/decoder_start; ids -> pieces (inverted vocab) or spm ids; decode with the
        target spm; leftover U+2581 (unknown pieces come back verbatim) -> space; strip."""
        drop = {self.tok["eos"], self.tok["unk"], self.tok["pad"], self.tok["decoder_start"]}
        ids = [i for i in ids if i not in drop]
        if self.tgt_pieces is not None:
            text = self.tgt_sp.decode_pieces([self.tgt_pieces[i] for i in ids if i in self.tgt_pieces])
        else:
            text = self.tgt_sp.decode(ids)
        return text.replace("\u2581", " ").strip()


# ----------------------------------------------------------------------------------------------
# Batched translation

def encode_batch(model, sources):
    """sources: list of id lists -> (enc_out [B, L, d], enc_mask [B,1,1,L])."""
    longest = max(len(s) for s in sources)
    src = torch.full((len(sources), longest), model.tokens["pad"], dtype=torch.long)
    for i, s in enumerate(sources):
        src[i, : len(s)] = torch.tensor(s, dtype=torch.long)
    return model.encode(src, [len(s) for s in sources])


def translate_ids(model, sources, opts, decoding, batch_size=16, cached=True, max_lengths=None):
    """Translate id lists (each incl. EOS); returns per source a list of Hypothesis (best first).
    Batches are sorted by length; max_lengths (per source) defaults to max_generated() from `decoding`."""
    results = [None] * len(sources)
    order = sorted(range(len(sources)), key=lambda i: -len(sources[i]))
    if max_lengths is None:
        max_lengths = [max_generated(len(s), decoding, model.config["max_positions"]) for s in sources]
    for b in range(0, len(order), batch_size):
        idx = order[b: b + batch_size]
        batch = [sources[i] for i in idx]
        with torch.inference_mode():
            enc, mask = encode_batch(model, batch)
            dec = (CachedDecoder if cached else RecomputeDecoder)(model, enc, mask)
            hyps = search(dec, [max_lengths[i] for i in idx], opts)
        for i, h in zip(idx, hyps):
            results[i] = h
    return results


def main():
    ap = argparse.ArgumentParser(description="Reference translation with the PyTorch model.")
    ap.add_argument("model_dir")
    ap.add_argument("--beam", type=int, default=None, help="beam size (default: the model's)")
    ap.add_argument("--length-penalty", type=float, default=None)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--no-cache", action="store_true", help="recompute the whole prefix each step")
    args = ap.parse_args()
    torch.set_num_threads(1)

    model, meta = Model.load(args.model_dir)
    tokenizer = Tokenizer(args.model_dir, meta)
    opts = search_options(meta, args.beam, args.length_penalty)
    lines = [line.rstrip("\n") for line in sys.stdin]
    todo = [i for i, line in enumerate(lines) if line.strip()]
    hyps = translate_ids(model, [tokenizer.encode(lines[i]) for i in todo], opts, meta["decoding"],
                         args.batch_size, cached=not args.no_cache)
    out = [""] * len(lines)
    for i, h in zip(todo, hyps):
        out[i] = tokenizer.decode(h[0].tokens)
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
