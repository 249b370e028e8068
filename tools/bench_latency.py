#!/usr/bin/python3
"""`make bench-latency`: single-sentence latency, what an interactive user or one server request waits.

  /usr/bin/python3 tools/bench_latency.py --nmt build/nmt [--model data/multi30k-en-de] [--synthetic]
      [--sentences 200] [--threads 1,2] [--rounds 2] [--baseline-nmt OLD/nmt] [--dtype f32|int8]

One request = one sentence, beam 4, batch 1, model load excluded, p50 and p99 over the first --sentences
lines of test_2016_flickr:
  * nmt: one persistent `nmt translate --batch-size 1 --no-split` process fed through a pipe, a line at a
    time; a request is timed from writing its line to reading its translation (the pipe's round trip, tens
    of microseconds, counts against nmt); one untimed request first;
  * --baseline-nmt: the same for another nmt binary (before/after of a change, alternating);
  * CTranslate2 (when /opt/ctranslate2 exists, tools/bench_ct2.py): tools/ct2_driver.cc's latency mode,
    one translate_batch per sentence on its own clock, after one untimed request.
Both at the same fixed length limit (tools/bench_ct2.py) on the same weights. Engines alternate per round
(nmt, baseline, CTranslate2, then again), and the ratios are the medians of each round's.
"""
import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import bench_common as common  # noqa: E402  (run_measured, synthetic_model, int8_model, defaults)
import bench_ct2  # noqa: E402


def percentile(values, q):
    """The nearest-rank percentile (p99 of 200 requests = the 198th fastest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def nmt_latency(nmt, model, lines, beam, threads, max_length):
    """Per-request seconds and outputs of one persistent nmt process."""
    cmd = [nmt, "translate", "-m", model, "-b", str(beam), "--batch-size", "1", "--threads", str(threads),
           "--no-split", "--max-length-a", "0", "--max-length-b", str(max_length)]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    out = p.stdout

    def request(line):
        p.stdin.write((line + "\n").encode())
        return out.readline().decode().rstrip("\n")

    request(lines[0])   # load and warm-up, untimed
    times, outputs = [], []
    for line in lines:
        t0 = time.perf_counter()
        outputs.append(request(line))
        times.append(time.perf_counter() - t0)
    p.stdin.close()
    p.wait()
    return times, outputs


def ct2_latency(ct2_dir, compute_type, nmt_model, lines, beam, threads, max_length, tmp):
    pieces = bench_ct2.source_pieces(nmt_model, lines, os.path.join(tmp, "lat-src.txt"))
    lp, ngram = bench_ct2.decoding(nmt_model)
    r, _ = bench_ct2.run_ct2(common.run_measured, ct2_dir, compute_type, pieces, tmp, beam, threads, max_length, lp,
                             ngram, mode="latency")
    return r["request_s"]


def summary(times):
    return {"p50_ms": 1e3 * percentile(times, 50), "p99_ms": 1e3 * percentile(times, 99),
            "mean_ms": 1e3 * statistics.mean(times)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nmt", default=os.path.join(common.ROOT, "build", "nmt"))
    ap.add_argument("--baseline-nmt", default=None, help="another nmt binary, measured alternating with --nmt")
    ap.add_argument("--model", default=common.DEFAULT_MODEL)
    ap.add_argument("--synthetic", action="store_true", help="also the synthetic OPUS-MT-sized model")
    ap.add_argument("--input", default=common.DEFAULT_INPUT)
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--dtype", choices=("f32", "int8"), default="f32")
    ap.add_argument("--no-ct2", action="store_true")
    a = ap.parse_args()
    lines = common.read_input(a.input, a.sentences)
    models = [(os.path.basename(os.path.normpath(a.model)), a.model, bench_ct2.BUNDLED_MAX_LENGTH)]
    if a.synthetic:
        spm = os.path.join(a.model, "spm.model")
        synth = common.synthetic_model(spm, os.path.join(common.WORK, "synthetic-opus-mt"))
        models.append(("synthetic OPUS-MT size", synth, bench_ct2.SYNTH_MAX_LENGTH))
    reason = "--no-ct2" if a.no_ct2 else bench_ct2.unavailable_reason()
    engines = {"nmt": os.path.abspath(a.nmt)}
    if a.baseline_nmt:
        engines["nmt baseline"] = os.path.abspath(a.baseline_nmt)
    load = [os.getloadavg()[0]]
    rows = []
    with tempfile.TemporaryDirectory(prefix="nmt-latency-") as tmp:
        for label, model, max_length in models:
            nmt_model = model if a.dtype == "f32" else common.int8_model(engines["nmt"], model)
            ct2_dir = None if reason else bench_ct2.ct2_model(bench_ct2.f32_twin(model),
                                                              "float32" if a.dtype == "f32" else "int8")
            for threads in [int(t) for t in a.threads.split(",")]:
                times = {e: [] for e in list(engines) + ([] if reason else ["CTranslate2"])}
                round_p50 = {e: [] for e in times}
                outputs = {}
                for _ in range(a.rounds):
                    for engine, binary in engines.items():
                        t, outputs[engine] = nmt_latency(binary, nmt_model, lines, a.beam, threads, max_length)
                        times[engine] += t
                        round_p50[engine].append(percentile(t, 50))
                    if not reason:
                        t = ct2_latency(ct2_dir, "float32" if a.dtype == "f32" else "int8", nmt_model, lines, a.beam,
                                        threads, max_length, tmp)
                        times["CTranslate2"] += t
                        round_p50["CTranslate2"].append(percentile(t, 50))
                    common.log(f"[latency] {label} {threads} threads: " + ", ".join(
                        f"{e} p50 {1e3 * v[-1]:.1f} ms" for e, v in round_p50.items()))
                same = None
                if "nmt baseline" in outputs:
                    same = outputs["nmt"] == outputs["nmt baseline"]
                rows.append({"model": label, "threads": threads, "summary": {e: summary(t) for e, t in times.items()},
                             "p50_ratios": {e: statistics.median(o / n for o, n in zip(v, round_p50["nmt"]))
                                            for e, v in round_p50.items() if e != "nmt"},
                             "baseline_same_output": same})
    load.append(os.getloadavg()[0])
    print(f"single-sentence latency, beam {a.beam}, batch 1, {a.dtype}, {len(lines)} requests x {a.rounds} rounds "
          f"per engine, load average {load[0]:.2f} at start, {load[1]:.2f} at end"
          + (f"; CTranslate2 skipped: {reason}" if reason else "") + "\n")
    print("| model | threads | engine | p50 (ms) | p99 (ms) | mean (ms) | its p50 / nmt's (median of rounds) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        for engine, s in r["summary"].items():
            ratio = r["p50_ratios"].get(engine)
            print(f"| {r['model']} | {r['threads']} | {engine} | {s['p50_ms']:.1f} | {s['p99_ms']:.1f} | "
                  f"{s['mean_ms']:.1f} | {'–' if ratio is None else f'{ratio:.2f}x'} |")
    for r in rows:
        if r["baseline_same_output"] is not None:
            print(f"\n{r['model']}, {r['threads']} threads: nmt and nmt baseline outputs "
                  f"{'identical' if r['baseline_same_output'] else 'DIFFER'}", end="")
    print()


if __name__ == "__main__":
    main()
