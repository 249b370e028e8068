#!/usr/bin/python3
"""Synthetic training pairs from monolingual text, translated by `nmt translate` itself, in resumable chunks.

  /usr/bin/python3 tools/synth_data.py --nmt build/nmt --model data/general-en-de \
      --input ../shared/data/general-en-de-extra/mono.en.gz --out build/synth/ft-en [--limit N] [--beam 1]

The input's lines are written as chunk files under OUT/src/ (CHUNK_LINES lines each) and translated as a tree
into OUT/hyp/: nmt's resume manifest skips every chunk already done, so a killed or budget-stopped run is
continued by the same command. Once every chunk is there, OUT.en.gz and OUT.de.gz hold the pairs (source
and translation on the sides the model's languages say), one pair per input line, for tools/train.py
--synthetic NAME=OUT. Lines the engine leaves empty are dropped from the pairs.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import model_languages  # noqa: E402
from train_data import read_lines, write_pairs  # noqa: E402

CHUNK_LINES = 5000


def write_chunks(lines, src_dir):
    """chunk-NNNNN.txt files; rewritten only when missing or different, so the manifest's records hold."""
    os.makedirs(src_dir, exist_ok=True)
    names = []
    for start in range(0, len(lines), CHUNK_LINES):
        name = f"chunk-{start // CHUNK_LINES:05d}.txt"
        text = "".join(line + "\n" for line in lines[start:start + CHUNK_LINES])
        path = os.path.join(src_dir, name)
        if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
        names.append(name)
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nmt", default="build/nmt")
    ap.add_argument("--model", required=True)
    ap.add_argument("--input", required=True, help="monolingual text, one sentence per line (.gz or plain)")
    ap.add_argument("--out", required=True, help="the work folder; OUT.<lang>.gz are the pairs")
    ap.add_argument("--limit", type=int, default=0, help="only the first N lines (0: all)")
    ap.add_argument("--beam", type=int, default=0, help="beam width (0: the model's)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    src_lang, tgt_lang = model_languages(args.model)
    lines = read_lines(args.input)
    if args.limit:
        lines = lines[:args.limit]
    names = write_chunks(lines, os.path.join(args.out, "src"))
    cmd = [args.nmt, "translate", "-m", args.model, "--threads", str(args.threads), "--glob", "chunk-*.txt",
           "--input-dir", os.path.join(args.out, "src"), "--output-dir", os.path.join(args.out, "hyp")]
    if args.beam:
        cmd += ["--beam", str(args.beam)]
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)

    sources, targets = [], []
    for name in names:
        src = read_lines(os.path.join(args.out, "src", name))
        hyp = read_lines(os.path.join(args.out, "hyp", name))
        if len(src) != len(hyp):
            raise SystemExit(f"synth_data: {args.out}/hyp/{name} has {len(hyp)} lines for {len(src)} sources")
        for s, h in zip(src, hyp):
            if s.strip() and h.strip():
                sources.append(s)
                targets.append(h)
    write_pairs(args.out, {src_lang: sources, tgt_lang: targets})
    print(f"synth_data: {len(sources)} pairs ({src_lang} -> {tgt_lang}) in {args.out}.{{{src_lang},{tgt_lang}}}.gz")


if __name__ == "__main__":
    sys.exit(main())
