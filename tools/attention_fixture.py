#!/usr/bin/env python3
"""Attention weights of the PyTorch reference for the golden fixtures: tests/fixtures/<name>/attention.json.

For sentence 0 of each fixture's golden.json, teacher-forced on its greedy output (decoder start first), the
weights of every layer and head: {"sentence": 0, "source": ids, "tokens": decoder inputs,
"encoder": [layer][head][source][source], "decoder": [layer][head][step][step], "cross": [layer][head][step][source]}.
Run by `make fixtures` after tools/make_fixtures.py; needs Debian's python3 with torch.
"""
import argparse
import json
import os

import torch

import reference as ref

FIXTURES = ["paper", "opus", "gelu-table"]


def rounded(weights):
    """[layer] of [1, H, T, S] tensors -> nested lists, 7 significant digits (well within the 1e-4 tested)."""
    return [[[[float(f"{x:.7g}") for x in row] for row in head] for head in layer[0]] for layer in weights]


def attention(model_dir, golden):
    model, _ = ref.Model.load(model_dir)
    source = golden["sources"][0]
    tokens = [golden["search"]["decoder_start"]] + golden["greedy"][0]["ids"]
    model.record = {"encoder": [], "decoder": [], "cross": []}
    with torch.inference_mode():
        enc, mask = ref.encode_batch(model, [source])
        model.decode_full(torch.tensor([tokens]), enc, mask)
    return {"sentence": 0, "source": source, "tokens": tokens,
            **{kind: rounded(model.record[kind]) for kind in ("encoder", "decoder", "cross")}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/fixtures")
    args = ap.parse_args()
    torch.set_num_threads(1)
    for name in FIXTURES:
        fdir = os.path.join(args.out, name)
        with open(os.path.join(fdir, "golden.json"), encoding="utf-8") as f:
            golden = json.load(f)
        with open(os.path.join(fdir, "attention.json"), "w", encoding="utf-8") as f:
            json.dump(attention(os.path.join(fdir, "model"), golden), f)
            f.write("\n")


if __name__ == "__main__":
    main()
