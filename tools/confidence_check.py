#!/usr/bin/env python3
"""How well `confidence` tells in-domain translations from out-of-domain ones: the area under the ROC
curve (AUC) over two `nmt translate --output-format jsonl` outputs, the in-domain one labelled good.

    nmt translate -m MODEL --threads 1 --output-format jsonl < in.en > in.jsonl
    nmt translate -m MODEL --threads 1 --output-format jsonl < ood.en > ood.jsonl
    tools/confidence_check.py in.jsonl ood.jsonl

Prints the AUC (1 = every in-domain line above every out-of-domain one, 0.5 = chance), the share of each
set below a few thresholds (to choose --min-confidence) and how often each flag occurs. Exit 1 when
--min-auc is given and not reached.

With --refs IN_REF OOD_REF (the references, line by line, plain or .gz), also the AUC for telling bad
translations from good ones over both sets together: sentence BLEU < 10 (bad) against >= 30 (good), lines
in between left out. Sentence BLEU is sacreBLEU's sentence_bleu: 13a tokens, cased, exp smoothing
(the k-th n-gram order without a match counts 1/2^k of its total), the effective order (orders longer
than the hypothesis are left out), 0 without any word in common.
"""
import argparse
import collections
import gzip
import json
import math
import re
import sys

BAD_BLEU, GOOD_BLEU = 10.0, 30.0

# sacreBLEU's 13a tokenizer (mteval-v13a), as ../shared/tools/bleu.py writes it.
_RX = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tok13a(line):
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    for rx, sub in _RX:
        line = rx.sub(sub, line)
    return line.split()


def sentence_bleu(hyp, ref):
    """sacreBLEU's sentence_bleu (exp smoothing, effective order), 0..100."""
    hw, rw = tok13a(hyp.strip()), tok13a(ref.strip())
    if not hw:
        return 0.0
    log_sum, order, smooth, matched = 0.0, 0, 1.0, False
    for n in range(1, 5):
        total = max(0, len(hw) - n + 1)
        if total == 0:
            break  # effective order: no n-grams of this length in the hypothesis
        hc = collections.Counter(tuple(hw[i:i + n]) for i in range(total))
        rc = collections.Counter(tuple(rw[i:i + n]) for i in range(len(rw) - n + 1))
        correct = sum(min(c, rc[g]) for g, c in hc.items())
        matched = matched or correct > 0
        if correct == 0:
            smooth *= 2
            precision = 100.0 / (smooth * total)
        else:
            precision = 100.0 * correct / total
        log_sum += math.log(precision)
        order += 1
    if not matched:
        return 0.0  # sacreBLEU's early stop: no n-gram in common
    bp = 1.0 if len(hw) >= len(rw) else math.exp(1 - len(rw) / len(hw))
    return bp * math.exp(log_sum / order)


def read_lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def read(path, refs=None):
    """The translated rows of a jsonl output; with `refs`, each row gets its line's "bleu"."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            row = json.loads(line)
            if "error" in row:
                continue
            if refs is not None:
                if number > len(refs):
                    sys.exit(f"{path}:{number}: no reference line for it")
                row["bleu"] = sentence_bleu(row["text"], refs[number - 1])
            if "confidence" not in row:
                sys.exit(f"{path}:{number}: no 'confidence' field (an nmt without confidences?)")
            rows.append(row)
    return rows


def auc(good, bad):
    """P(a good score > a bad score), ties counted half (the Mann-Whitney U statistic)."""
    ranked = sorted([(s, 1) for s in good] + [(s, 0) for s in bad])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mean_rank = (i + j + 1) / 2  # ranks i+1..j
        rank_sum += mean_rank * sum(label for _, label in ranked[i:j])
        i = j
    return (rank_sum - len(good) * (len(good) + 1) / 2) / (len(good) * len(bad))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("in_domain", help="jsonl output of in-domain input (labelled good)")
    parser.add_argument("out_of_domain", help="jsonl output of out-of-domain input (labelled bad)")
    parser.add_argument("--min-auc", type=float, help="exit 1 below this AUC")
    parser.add_argument("--refs", nargs=2, metavar=("IN_REF", "OOD_REF"),
                        help="references of both inputs: also the sentence-BLEU AUC")
    args = parser.parse_args()
    refs = [read_lines(path) for path in args.refs] if args.refs else [None, None]
    good, bad = read(args.in_domain, refs[0]), read(args.out_of_domain, refs[1])
    if not good or not bad:
        sys.exit("both files need at least one translated line")
    value = auc([r["confidence"] for r in good], [r["confidence"] for r in bad])
    print(f"AUC {value:.4f} ({len(good)} in-domain, {len(bad)} out-of-domain lines)")
    for threshold in (0.3, 0.4, 0.5, 0.6):
        below = [sum(r["confidence"] < threshold for r in rows) / len(rows) for rows in (good, bad)]
        print(f"below {threshold}: {below[0]:.1%} of in-domain, {below[1]:.1%} of out-of-domain")
    for name, rows in (("in-domain", good), ("out-of-domain", bad)):
        counts = collections.Counter(flag for r in rows for flag in r.get("flags", []))
        print(f"flags {name}: " + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"))
    if args.refs:
        rows = good + bad
        high = [r["confidence"] for r in rows if r["bleu"] >= GOOD_BLEU]
        low = [r["confidence"] for r in rows if r["bleu"] < BAD_BLEU]
        if high and low:
            print(f"sentence-BLEU AUC {auc(high, low):.4f} ({len(high)} lines >= {GOOD_BLEU:g}, "
                  f"{len(low)} lines < {BAD_BLEU:g}, {len(rows) - len(high) - len(low)} between)")
        else:
            print("sentence-BLEU AUC: needs lines on both sides of the thresholds")
    if args.min_auc is not None and value < args.min_auc:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
