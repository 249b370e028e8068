#!/usr/bin/python3
"""Word alignments on held-out lines: `nmt translate --alignment` must print `text ||| pairs` for every line,
the text byte-identical to the plain translation, every pair `s-t` in range of the line's whitespace-separated
words, and every target word aligned exactly once.

  tools/alignment_check.py --nmt build/nmt --input test_2016_flickr.en.gz [--lines 100] [-b 1]

Exit status 1 on the first line that breaks a rule (printed), so ctest can run it.

With --gold FILE (tests/alignment/multi30k_gold.tsv: source, translation, hand-checked links), it
measures instead how well each decoder layer's cross-attention aligns: the share of scored target words
linked to a source word the gold allows, per --alignment-layer, over the lines whose translation matches.

  tools/alignment_check.py --nmt build/nmt --gold tests/alignment/multi30k_gold.tsv -b 5
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


def read_gold(path):
    """[(source, translation, {target word: set of allowed source words})]"""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            source, translation, links = line.rstrip("\n").split("\t")
            allowed = {}
            for pair in links.split():
                s, t = map(int, pair.split("-"))
                allowed.setdefault(t, set()).add(s)
            rows.append((source, translation, allowed))
    return rows


def model_layers(nmt):
    """(decoder layers, the default alignment layer) of the default model, from `nmt info`."""
    info = subprocess.run([nmt, "info"], capture_output=True, text=True, check=True).stdout
    n = int(re.search(r"decoder_layers: (\d+)", info).group(1))
    default = re.search(r"alignment_layer: (\d+)", info)
    return n, int(default.group(1)) if default else n - 1


def measure_layers(args):
    rows = read_gold(args.gold)
    sources = [r[0] for r in rows]
    best = None
    n, default = model_layers(args.nmt)
    for layer in range(n):
        out = translate(args.nmt, sources, ["-b", args.beam_size, "--alignment", "--alignment-layer", str(layer)])
        right = scored = lines = 0
        for (source, translation, allowed), aligned in zip(rows, out):
            text, _, pairs = aligned.rpartition(" ||| ")
            if text != translation:
                continue
            lines += 1
            for pair in pairs.split():
                s, t = map(int, pair.split("-"))
                if t in allowed:
                    scored += 1
                    right += s in allowed[t]
        share = right / scored if scored else 0.0
        print("layer %d: %d of %d target words linked as the gold allows (%.1f%%), %d of %d lines"
              % (layer, right, scored, 100 * share, lines, len(rows)))
        if best is None or share > best[1]:
            best = (layer, share)
    print("best: layer %d; the model's default: layer %d" % (best[0], default))
    return 1 if args.check_default and best[0] != default else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nmt", required=True)
    parser.add_argument("--input")
    parser.add_argument("--gold", help="measure each layer's alignments against hand-checked links")
    parser.add_argument("--check-default", action="store_true",
                        help="with --gold: exit 1 unless the model's default alignment layer is the best")
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("-b", "--beam-size", default="1")
    args = parser.parse_args()
    if args.gold:
        return measure_layers(args)
    if not args.input:
        parser.error("--input or --gold is required")
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
