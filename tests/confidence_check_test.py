#!/usr/bin/env python3
"""tools/confidence_check.py: sentence BLEU as sacreBLEU's sentence_bleu computes it (values from sacreBLEU
2.x, exp smoothing, effective order) and the AUC's ranks and ties."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import confidence_check as cc  # noqa: E402

ref = "The cat sat on the mat."
cases = [
    ("The cat sat on the mat.", ref, 100.0),
    ("The cat sat on a mat.", ref, 48.8923),  # 6/7, 4/6, 2/5, 1/4
    ("Hello", "The cat", 0.0),  # no word in common
    ("The dog", "The cat", 50.0),  # effective order 2: unigrams 1/2, bigrams 0/1 smoothed to 1/2
    ("", ref, 0.0),
]
failed = 0
for hyp, reference, want in cases:
    got = cc.sentence_bleu(hyp, reference)
    if abs(got - want) > 1e-3:
        print(f"sentence_bleu({hyp!r}, {reference!r}) = {got:.4f}, want {want}")
        failed += 1
for good, bad, want in (([0.9, 0.8], [0.1, 0.2], 1.0), ([0.1], [0.9], 0.0), ([0.5], [0.5], 0.5)):
    if abs(cc.auc(good, bad) - want) > 1e-9:
        print(f"auc({good}, {bad}) = {cc.auc(good, bad)}, want {want}")
        failed += 1
print("ok" if not failed else f"{failed} failed")
sys.exit(1 if failed else 0)
