#!/usr/bin/python3
"""`make bench-scaling`: nmt's throughput as replicas x threads per replica, from 1 core up to all present.

  /usr/bin/python3 tools/bench_scaling.py --nmt build/nmt [--sentences 300] [--runs 2] [--dtype int8]
      [--model DIR] [--cores 1,2,4] [--write]

For each core count c in 1, 2, 4, ... (and the cores present), every split r x t = c with r and t powers of
two (r replicas of t threads: `nmt translate --replicas r --threads t`), on the synthetic OPUS-MT-sized
model (tools/bench_common.py; --model for another), beam 4, batch 32, the first --sentences lines of
test_2016_flickr, one sentence a line, fixed length limit (tools/bench_ct2.py). The splits alternate
(1x1, 1x2, 2x1, ..., again) --runs times; printed per split: target tokens/s (median; translate wall minus
load), efficiency = tokens/s / (c x 1x1's), peak RSS, and whether every split's output is byte-identical.
--write puts the table in bench/latest/scaling-MACHINE.md.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import bench_common as common  # noqa: E402
import bench_ct2  # noqa: E402
from bench_report import machine_info, machine_key  # noqa: E402


def core_counts(cores):
    counts, c = [], 1
    while c < cores:
        counts.append(c)
        c *= 2
    return counts + [cores]


def splits(c):
    """(replicas, threads) with replicas x threads = c, both powers of two (c itself when it is not)."""
    out = [(1, c)]
    r = 2
    while r <= c:
        if c % r == 0:
            out.append((r, c // r))
        r *= 2
    return out


def run_split(nmt, model, plain, tmp, replicas, threads, beam, max_length):
    out, err = os.path.join(tmp, f"out-{replicas}x{threads}.jsonl"), os.path.join(tmp, "err")
    cmd = [nmt, "translate", "-m", model, "-i", plain, "-o", out, "-b", str(beam), "--batch-size", "32",
           "--replicas", str(replicas), "--threads", str(threads), "--stats", "--no-split",
           "--output-format", "jsonl", "--max-length-a", "0", "--max-length-b", str(max_length)]
    code, rss, _ = common.run_measured(cmd, os.path.join(tmp, "stdout"), err)
    stats = bench_ct2._last_json(err, cmd, code)
    with open(out, "rb") as f:
        output = f.read()
    return stats["target_tokens"] / max(stats["translate_s"], 1e-9), stats["translate_s"], rss, output


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nmt", default=os.path.join(common.ROOT, "build", "nmt"))
    ap.add_argument("--model", default=None, help="an nmt model (default: the synthetic OPUS-MT-sized one)")
    ap.add_argument("--input", default=common.DEFAULT_INPUT)
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--dtype", choices=("f32", "int8"), default="int8")
    ap.add_argument("--cores", default=None, help="core counts, comma-separated (default: 1, 2, 4, ... all)")
    ap.add_argument("--write", action="store_true", help="also write bench/latest/scaling-MACHINE.md")
    a = ap.parse_args()
    nmt = os.path.abspath(a.nmt)
    cores = len(os.sched_getaffinity(0))
    counts = [int(c) for c in a.cores.split(",")] if a.cores else core_counts(cores)
    if a.model:
        model, label, max_length = a.model, os.path.basename(os.path.normpath(a.model)), bench_ct2.BUNDLED_MAX_LENGTH
    else:
        model = common.synthetic_model(os.path.join(common.DEFAULT_MODEL, "spm.model"),
                                       os.path.join(common.WORK, "synthetic-opus-mt"))
        label, max_length = "synthetic OPUS-MT size", bench_ct2.SYNTH_MAX_LENGTH
    if a.dtype == "int8":
        model = common.int8_model(nmt, model)
    lines = common.read_input(a.input, a.sentences)
    configs = [s for c in counts for s in splits(c)]
    results = {s: {"tps": [], "s": [], "rss": []} for s in configs}
    outputs = set()
    load = [os.getloadavg()[0]]
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="nmt-scaling-") as tmp:
        plain = os.path.join(tmp, "plain.txt")
        with open(plain, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        for run in range(a.runs):
            for r, t in configs:
                tps, secs, rss, output = run_split(nmt, model, plain, tmp, r, t, a.beam, max_length)
                results[(r, t)]["tps"].append(tps)
                results[(r, t)]["s"].append(secs)
                results[(r, t)]["rss"].append(rss)
                outputs.add(output)
                common.log(f"[scaling] run {run + 1}: {r} x {t}: {tps:,.0f} tokens/s, {secs:.2f} s, {rss:.0f} MB")
    load.append(os.getloadavg()[0])
    med = {s: {k: statistics.median(v) for k, v in x.items()} for s, x in results.items()}
    base = med.get((1, 1), {}).get("tps")
    cpu = machine_info()
    text = (f"nmt scaling on {cpu['cpu']}, {cores} cores: {label}, {a.dtype}, beam {a.beam}, batch 32, "
            f"{len(lines)} sentences, median of {a.runs} alternating runs, load average {load[0]:.2f} at start, "
            f"{load[1]:.2f} at end, {time.time() - start:.0f} s; efficiency = tokens/s / (cores x 1x1's)\n\n"
            "| cores | replicas x threads | tokens/s | translate (s) | efficiency | peak RSS (MB) |\n"
            "|---|---|---|---|---|---|\n")
    for r, t in configs:
        m = med[(r, t)]
        eff = f"{100 * m['tps'] / (base * r * t):.0f}%" if base else "–"
        text += f"| {r * t} | {r} x {t} | {m['tps']:,.0f} | {m['s']:.2f} | {eff} | {m['rss']:.0f} |\n"
    text += (f"\noutputs of the {len(configs)} splits: "
             + ("byte-identical" if len(outputs) == 1 else f"{len(outputs)} DIFFERENT versions") + "\n")
    print(text, end="")
    if a.write:
        path = os.path.join(common.ROOT, "bench", "latest", f"scaling-{machine_key(cpu)}.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write("# make bench-scaling\n\n" + text)
        common.log(f"wrote {path}")
    return 0 if len(outputs) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
