#!/usr/bin/python3
"""Marian's beam search, end to end: the opus fixture as native Marian (tests/fixtures/opus/marian),
converted, gives marian-decoder's 4-best lists (the checked-in marian-decoder-beam4.nbest) for the golden
sentences: the same hypotheses in the same order, with the same total and normalised scores.

  tests/marian_nbest_check.py NMT_BINARY FIXTURE_DIR

The golden came from marian-decoder (browsermt/marian-dev v1.9.56, CPU) reading the sentences as the
pieces of their golden ids: `-b 4 --n-best --normalize 1 --mini-batch 1 --maxi-batch 1`, its other
defaults as the fixture's decoder.yml leaves them. Its random weights make long, looping outputs, where
Hugging Face's beam rules and Marian's choose differently.
"""
import json
import math
import os
import subprocess
import sys
import tempfile


def entries(lines, pieces):
    """(sentence, text, total, normalised) per n-best line; Marian's pieces joined into text. nmt keeps a
    line's outer spaces around its translation: not compared."""
    out = []
    for line in lines:
        index, text, total, score = line.rstrip("\n").split(" ||| ")
        if pieces:
            text = "".join(text.split(" ")).replace("\u2581", " ")
        out.append((int(index), text.strip(), float(total.split("= ")[1]), float(score)))
    return out


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)


def main():
    nmt, fixture = sys.argv[1:3]
    with open(os.path.join(fixture, "golden.json"), encoding="utf-8") as f:
        sources = json.load(f)["sources_text"]
    with open(os.path.join(fixture, "marian-decoder-beam4.nbest"), encoding="utf-8") as f:
        want = entries(f, pieces=True)
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "model")
        subprocess.run([nmt, "convert", "--from", "marian-npz", fixture, "--source-lang", "en", "--target-lang",
                        "de", "-o", model], check=True,
                       stdout=subprocess.DEVNULL)
        run = subprocess.run([nmt, "translate", "-q", "-m", model, "-b", "4", "--n-best", "4", "--batch-size",
                              "1"], input="\n".join(sources) + "\n", capture_output=True, text=True, check=True)
    got = entries(run.stdout.splitlines(), pieces=False)
    bad = [(w, g) for w, g in zip(want, got)
           if w[:2] != g[:2] or not close(w[2], g[2]) or not close(w[3], g[3])]
    for w, g in bad:
        print(f"differs: marian-decoder {w}\n         nmt            {g}")
    print(f"{len(want) - len(bad)} of {len(want)} n-best entries equal marian-decoder's ({len(got)} from nmt)")
    return 0 if not bad and len(got) == len(want) else 1


if __name__ == "__main__":
    sys.exit(main())
