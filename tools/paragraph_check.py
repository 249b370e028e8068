#!/usr/bin/python3
"""Held-out paragraphs: groups of 2-4 test sentences joined into one line must translate exactly as the
sentences alone (each with --no-split) joined by one space.

  tools/paragraph_check.py --nmt build/nmt --input test_2016_flickr.en.gz [--groups N] [-b 1] [--min 0.95]

Two figures, both printed:
  * fair: groups built from sentences that end in sentence-final punctuation (. ! ? ... with closing quotes
    or brackets after it). A Multi30k caption without a final period ("A child is splashing in the water")
    followed by the next caption leaves no sentence boundary a reader could see, so no splitter can find one;
    such groups measure the data, not the splitter.
  * raw: groups built from every sentence, in order, captions without final punctuation included.
Groups are consecutive sentences in input order, sizes cycling 2, 3, 4, so a run is deterministic. Every
group whose translations differ is printed with both outputs. Exit status 1 when the fair figure is below
--min, so ctest can run it.
"""
import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile

# Sentence-final punctuation, then closing quotes or brackets.
SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019\u00bb)\]]*$")


def read_sentences(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def make_groups(sentences, limit):
    groups, i, sizes = [], 0, (2, 3, 4)
    while i + 2 <= len(sentences) and len(groups) < limit:
        size = sizes[len(groups) % len(sizes)]
        groups.append(sentences[i:i + size])
        i += size
    return groups


def translate(args, lines, extra, tmp):
    src = os.path.join(tmp, "in.txt")
    with open(src, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    cmd = [args.nmt, "translate", "-q", "-i", src, "-b", str(args.beam), "--threads", str(args.threads)]
    if args.model:
        cmd += ["-m", args.model]
    out = subprocess.run(cmd + extra, check=True, capture_output=True, text=True).stdout
    result = out.split("\n")
    if result[-1] == "":
        result.pop()
    if len(result) != len(lines):
        sys.exit(f"paragraph_check: {len(lines)} lines in, {len(result)} out: {' '.join(cmd + extra)}")
    return result


def measure(args, groups, label, tmp):
    alone = translate(args, [s for g in groups for s in g], ["--no-split"], tmp)
    joined = translate(args, [" ".join(g) for g in groups], [], tmp)
    same, unmarked, nxt = 0, 0, 0
    for group, got in zip(groups, joined):
        expected = " ".join(alone[nxt:nxt + len(group)])
        nxt += len(group)
        if got == expected:
            same += 1
            continue
        # A sentence other than the last without final punctuation: no boundary to find after it.
        no_boundary = any(not SENTENCE_END.search(s) for s in group[:-1])
        unmarked += no_boundary
        if args.verbose:
            why = "no final punctuation before a join" if no_boundary else "UNEXPLAINED"
            print(f"[{label}] differs ({why}): {' | '.join(group)}\n  alone:  {expected}\n  joined: {got}")
    print(f"{label}: {same}/{len(groups)} groups identical ({100.0 * same / max(len(groups), 1):.1f}%); "
          f"of the {len(groups) - same} others, {unmarked} join a sentence without final punctuation")
    return same, len(groups)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nmt", required=True, help="the nmt binary")
    ap.add_argument("--model", default=None, help="model directory (default: nmt's)")
    ap.add_argument("--input", required=True, help="held-out source sentences, one per line, plain or .gz")
    ap.add_argument("--groups", type=int, default=1000000, help="at most this many groups per figure")
    ap.add_argument("-b", "--beam", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--min", type=float, default=0.95, help="the fair figure's required share")
    ap.add_argument("--no-raw", action="store_true", help="only the fair figure")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every group that differs")
    args = ap.parse_args()
    sentences = read_sentences(args.input)
    ended = [s for s in sentences if SENTENCE_END.search(s)]
    print(f"{args.input}: {len(sentences)} sentences, {len(ended)} end in sentence-final punctuation")
    with tempfile.TemporaryDirectory() as tmp:
        same, total = measure(args, make_groups(ended, args.groups), "fair", tmp)
        if not args.no_raw:
            measure(args, make_groups(sentences, args.groups), "raw", tmp)
    return 0 if total and same >= args.min * total else 1


if __name__ == "__main__":
    sys.exit(main())
