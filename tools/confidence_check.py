#!/usr/bin/env python3
"""How well `confidence` tells in-domain translations from out-of-domain ones: the area under the ROC
curve (AUC) over two `nmt translate --output-format jsonl` outputs, the in-domain one labelled good.

    nmt translate -m MODEL --threads 1 --output-format jsonl < in.en > in.jsonl
    nmt translate -m MODEL --threads 1 --output-format jsonl < ood.en > ood.jsonl
    tools/confidence_check.py in.jsonl ood.jsonl

Prints the AUC (1 = every in-domain line above every out-of-domain one, 0.5 = chance), the share of each
set below a few thresholds (to choose --min-confidence) and how often each flag occurs. Exit 1 when
--min-auc is given and not reached.
"""
import argparse
import collections
import json
import sys


def read(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            row = json.loads(line)
            if "error" in row:
                continue
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
    args = parser.parse_args()
    good, bad = read(args.in_domain), read(args.out_of_domain)
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
    if args.min_auc is not None and value < args.min_auc:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
