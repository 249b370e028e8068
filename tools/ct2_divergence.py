#!/usr/bin/python3
"""Why nmt's and CTranslate2's beam search outputs differ, line by line, after tools/ct2_parity.py.

  /usr/bin/python3 tools/ct2_divergence.py --work DIR --row post-int8-float32-b4 [--max-decoding 64]

For each line where the two best hypotheses differ (A: CTranslate2's, B: nmt's), both are scored by both
engines with each one's beam rules (length penalty 1: the sum of the token log-probabilities over the
length with the EOS; a hypothesis at the length limit has no EOS and divides by the limit): CTranslate2's
by forced decoding (ct2_driver "force", score_batch), nmt's from its n-best list. Each line is then
  ranking  each engine prefers its own output by its own scores: the two engines order the same two finished
           hypotheses oppositely, a numeric near-tie of `gap` (the larger of the two engines' margins);
  search   an engine scores the other's output higher than its own: its beam lost that hypothesis on the way,
           on a near-tie at some step's cut (`step_gap`: the two outputs' cumulative log-probabilities where
           they part, by CTranslate2);
  unknown  nmt's n-best lacks A, so nmt's score of it is unknown.
`ct2_reported` is CTranslate2's own score of A (it checks the rule above).
One JSON object a line, then a summary.
"""
import argparse
import json
import os
import subprocess

TOOLS = os.path.dirname(os.path.abspath(__file__))


def rule_score(log_probs, n_tokens, max_decoding):
    """CTranslate2's score with length penalty 1 from the tokens' log-probabilities (the EOS's last)."""
    if n_tokens >= max_decoding:
        return sum(log_probs[:max_decoding]) / max_decoding
    return sum(log_probs[:n_tokens + 1]) / (n_tokens + 1)


def read_rows(work, row):
    with open(os.path.join(work, row + ".nmt.jsonl"), encoding="utf-8") as f:
        nmt = [json.loads(line) for line in f if line.strip()]
    ct2 = []
    with open(os.path.join(work, row + ".ct2.tsv"), encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            ct2.append({fields[i + 1]: float(fields[i]) for i in range(0, len(fields) - 1, 2)})
    return nmt, ct2


def nmt_nbest(record):
    hyps = record.get("nbest") or [record]
    return {" ".join(h["tokens"]): h["score"] for h in hyps}


def ct2_force(driver, model, compute, sources, targets):
    lines = "".join(f"{s}\t{t}\n" for s, t in zip(sources, targets))
    out = subprocess.run([driver, model, compute, "2", "1", "1", "1", "0", "force"], input=lines, text=True,
                         capture_output=True, check=True, env=dict(os.environ, OMP_NUM_THREADS="2")).stdout
    return [[float(x) for x in line.split()] for line in out.splitlines()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--row", required=True, help="VARIANT-WEIGHTS-COMPUTE-bBEAM, e.g. pre-float32-float32-b4")
    ap.add_argument("--max-decoding", type=int, default=64)
    a = ap.parse_args()
    variant, weights, compute, _ = a.row.split("-")
    ct2_model = os.path.join(a.work, f"{variant}-{weights}")
    driver = os.path.join(a.work, "ct2_driver")
    nmt, ct2 = read_rows(a.work, a.row)
    with open(os.path.join(a.work, "pieces.txt"), encoding="utf-8") as f:
        pieces = [line.rstrip("\n") for line in f]
    differ = [i for i in range(len(nmt)) if " ".join(nmt[i]["tokens"]) != next(iter(ct2[i]))]
    pairs = [(i, next(iter(ct2[i])), " ".join(nmt[i]["tokens"])) for i in differ]
    targets = [t for _, x, y in pairs for t in (x, y)]
    sources = [pieces[i] for i, _, _ in pairs for _ in (0, 1)]
    forced_ct2 = ct2_force(driver, ct2_model, compute, sources, targets) if pairs else []
    counts = {}
    for n, (i, hyp_a, hyp_b) in enumerate(pairs):
        lp_ct2 = forced_ct2[2 * n:2 * n + 2]
        lengths = [len(h.split(" ")) if h else 0 for h in (hyp_a, hyp_b)]
        s_ct2 = [rule_score(lp, k, a.max_decoding) for lp, k in zip(lp_ct2, lengths)]
        best_nmt = nmt_nbest(nmt[i])
        s_nmt = [best_nmt.get(h) for h in (hyp_a, hyp_b)]
        a_tokens, b_tokens = hyp_a.split(" "), hyp_b.split(" ")
        t = next((k for k in range(min(len(a_tokens), len(b_tokens))) if a_tokens[k] != b_tokens[k]),
                 min(len(a_tokens), len(b_tokens)))
        step_gap = abs(sum(lp_ct2[0][:t + 1]) - sum(lp_ct2[1][:t + 1]))
        if None in s_nmt:
            kind, gap = "unknown", None
        elif s_ct2[1] > s_ct2[0] or s_nmt[0] > s_nmt[1]:
            kind, gap = "search", None
        else:
            kind, gap = "ranking", max(s_ct2[0] - s_ct2[1], s_nmt[1] - s_nmt[0])
        counts[kind] = counts.get(kind, 0) + 1
        print(json.dumps({"line": i, "kind": kind, "gap": gap, "parts_at": t, "step_gap": step_gap,
                          "lengths": lengths, "ct2_scores": s_ct2, "ct2_reported": ct2[i][hyp_a], "nmt_scores": s_nmt,
                          "ct2": hyp_a, "nmt": hyp_b}, ensure_ascii=False))
    print(json.dumps({"row": a.row, "lines": len(nmt), "differ": len(pairs), "kinds": counts}))


if __name__ == "__main__":
    main()
