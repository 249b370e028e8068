#!/usr/bin/python3
"""Word alignments on held-out lines: `nmt translate --alignment` must print `text ||| pairs` for every line,
the text byte-identical to the plain translation, every pair `s-t` in range of the line's whitespace-separated
words, and every target word aligned exactly once.

  tools/alignment_check.py --nmt build/nmt --input test_2016_flickr.en.gz [--lines 100] [-b 1]

Exit status 1 on the first line that breaks a rule (printed), so ctest can run it.
"""
import argparse
import gzip
import re
import subprocess
import sys

PAIR = re.compile(r"^(\d+)-(\d+)$")


def read_lines(path, limit):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for _, line in zip(range(limit), f)]


def translate(nmt, lines, extra):
    run = subprocess.run([nmt, "translate", "--threads", "1"] + extra, input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    return run.stdout.split("\n")[:-1]


def problem(source, plain, aligned):
    """What is wrong with one line's aligned output, or None."""
    text, sep, pairs = aligned.rpartition(" ||| ")
    if not sep:
        return "no ' ||| '"
    if text != plain:
        return "text differs from the plain translation"
    n_source, n_target = len(source.split()), len(text.split())
    seen = [0] * n_target
    for pair in pairs.split():
        m = PAIR.match(pair)
        if not m:
            return "not an s-t pair: " + pair
        s, t = int(m.group(1)), int(m.group(2))
        if s >= n_source or t >= n_target:
            return "pair %s out of range (%d source, %d target words)" % (pair, n_source, n_target)
        seen[t] += 1
    if any(count != 1 for count in seen):
        return "target words not aligned exactly once: %s" % seen
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nmt", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("-b", "--beam-size", default="1")
    args = parser.parse_args()
    lines = read_lines(args.input, args.lines)
    beam = ["-b", args.beam_size]
    plain = translate(args.nmt, lines, beam)
    aligned = translate(args.nmt, lines, beam + ["--alignment"])
    if len(plain) != len(lines) or len(aligned) != len(lines):
        print("line counts differ: %d in, %d plain, %d aligned" % (len(lines), len(plain), len(aligned)))
        return 1
    for i, (source, p, a) in enumerate(zip(lines, plain, aligned)):
        why = problem(source, p, a)
        if why:
            print("line %d: %s\n  source:  %s\n  aligned: %s" % (i + 1, why, source, a))
            return 1
    print("%d lines: every pair in range, every target word aligned once, texts equal" % len(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
