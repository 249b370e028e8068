#!/usr/bin/python3
"""nmt and CTranslate2 on a shared machine: how much each slows when other processes want the cores.

  /usr/bin/python3 tools/bench_contention.py --nmt build/nmt [--sentences 300] [--runs 2] [--threads 2]
      [--conditions quiet,nice0,nice10] [--busy-core 1] [--engines 'nmt,nmt replicas,CT2 passive,CT2 active']

The synthetic OPUS-MT-sized model (tools/bench_common.py), int8, beam 4, batch 32, --threads threads, the
first --sentences lines of test_2016_flickr, fixed length limit (tools/bench_ct2.py); engines: nmt and
CTranslate2 int8 on the same weights with OMP_WAIT_POLICY=passive and =active; "nmt replicas" (only when
--engines names it) is nmt with --replicas --threads of one thread each. Conditions:
  quiet   nothing else started;
  nice0   one CPU-bound busy loop at nice 0, pinned (taskset) to --busy-core;
  nice10  two busy loops at nice 10, one pinned to each of the first two cores.
The busy loops are started and killed here, and each stops itself after --busy-limit seconds whatever
happens to this script. In each condition the engines alternate (nmt, CT2 passive, CT2 active, again);
time = translate wall minus load, on each engine's own clock, median of --runs. Printed: the seconds, the
slowdown (condition / quiet) per engine, nmt's speed over each CTranslate2 policy per condition, and
whether nmt's outputs are byte-identical across conditions and runs.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import bench_common as common  # noqa: E402
import bench_ct2  # noqa: E402

ENGINES = ("nmt", "CT2 passive", "CT2 active")
# Not run unless --engines names it: --threads translators of one thread each (--replicas).
NMT_REPLICAS = "nmt replicas"
BUSY_LOOP = "import time\nend = time.time() + {limit}\nwhile time.time() < end:\n    pass\n"
SETTLE_S = 0.5   # lets the scheduler place the busy loops before the first run


def busy_loops(condition, core, limit):
    """(nice, core) of each busy loop a condition starts."""
    return {"quiet": [], "nice0": [(0, core)], "nice10": [(10, 0), (10, 1)]}[condition]


def start_busy(specs, limit):
    procs = []
    for nice, core in specs:
        cmd = ["taskset", "-c", str(core), "nice", "-n", str(nice), common.PYTHON, "-c",
               BUSY_LOOP.format(limit=limit)]
        procs.append(subprocess.Popen(cmd))  # this session: with autogroup, nice works within a session only
    time.sleep(SETTLE_S if procs else 0)
    return procs


def stop_busy(procs):
    for p in procs:
        if p.poll() is None:
            p.kill()  # taskset and nice exec the loop: one process
        p.wait()


def run_engine(engine, nmt, nmt_model, ct2_dir, plain, pieces, tmp, threads, beam, max_length, lp, ngram, limit):
    """(bench_ct2's result, nmt's output bytes or None); (None, None) when the run passed `limit` seconds."""
    def measured(cmd, stdout_path, stderr_path, env=None):
        return common.run_measured(["timeout", "-s", "KILL", str(limit)] + cmd, stdout_path, stderr_path, env)

    try:
        return _run_engine(engine, measured, nmt, nmt_model, ct2_dir, plain, pieces, tmp, threads, beam,
                           max_length, lp, ngram)
    except RuntimeError as e:
        if "(exit 137)" not in str(e):
            raise
        return None, None


def _run_engine(engine, measured, nmt, nmt_model, ct2_dir, plain, pieces, tmp, threads, beam, max_length, lp,
                ngram):
    if engine in ("nmt", NMT_REPLICAS):
        split = (1, ["--replicas", str(threads)]) if engine == NMT_REPLICAS else (threads, [])
        r, out = bench_ct2.run_nmt(measured, nmt, nmt_model, plain, tmp, beam, split[0], max_length, split[1])
        with open(os.path.join(tmp, "ct2-nmt.jsonl"), "rb") as f:
            return r, f.read()
    saved = os.environ.get("OMP_WAIT_POLICY")
    os.environ["OMP_WAIT_POLICY"] = engine.split()[-1]
    try:
        r, out = bench_ct2.run_ct2(measured, ct2_dir, "int8", pieces, tmp, beam, threads, max_length, lp,
                                   ngram)
    finally:
        if saved is None:
            os.environ.pop("OMP_WAIT_POLICY")
        else:
            os.environ["OMP_WAIT_POLICY"] = saved
    return r, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nmt", default=os.path.join(common.ROOT, "build", "nmt"))
    ap.add_argument("--model", default=common.DEFAULT_MODEL, help="whose SentencePiece model the synthetic one uses")
    ap.add_argument("--input", default=common.DEFAULT_INPUT)
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--conditions", default="quiet,nice0,nice10")
    ap.add_argument("--busy-core", type=int, default=1)
    ap.add_argument("--busy-limit", type=float, default=900, help="seconds after which a busy loop stops itself")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--run-limit", type=int, default=300, help="seconds after which a run is stopped (shown as >)")
    a = ap.parse_args()
    reason = bench_ct2.unavailable_reason()
    engines = [e for e in a.engines.split(",") if e.startswith("nmt") or not reason]
    nmt = os.path.abspath(a.nmt)
    lines = common.read_input(a.input, a.sentences)
    synth = common.synthetic_model(os.path.join(a.model, "spm.model"), os.path.join(common.WORK, "synthetic-opus-mt"))
    nmt_model = common.int8_model(nmt, synth)
    ct2_dir = None if reason else bench_ct2.ct2_model(bench_ct2.f32_twin(synth), "int8")
    max_length = bench_ct2.SYNTH_MAX_LENGTH
    lp, ngram = bench_ct2.decoding(nmt_model)
    conditions = a.conditions.split(",")
    times = {c: {e: [] for e in engines} for c in conditions}
    outputs = {}
    with tempfile.TemporaryDirectory(prefix="nmt-contention-") as tmp:
        plain = os.path.join(tmp, "plain.txt")
        with open(plain, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        pieces = bench_ct2.source_pieces(nmt_model, lines, os.path.join(tmp, "pieces.txt"))
        for condition in conditions:
            procs = start_busy(busy_loops(condition, a.busy_core, a.busy_limit), a.busy_limit)
            try:
                for run in range(a.runs):
                    for engine in engines:
                        r, out = run_engine(engine, nmt, nmt_model, ct2_dir, plain, pieces, tmp, a.threads, a.beam,
                                            max_length, lp, ngram, a.run_limit)
                        times[condition][engine].append(r["translate_s"] if r else math.inf)
                        if out is not None:
                            outputs[(condition, run, engine)] = out
                        common.log(f"[contention] {condition} run {run + 1}: {engine} "
                                   + (f"{r['translate_s']:.2f} s" if r else f"stopped after {a.run_limit} s"))
            finally:
                stop_busy(procs)
    med = {c: {e: statistics.median(v) for e, v in t.items()} for c, t in times.items()}
    base = med.get("quiet")
    print(f"nmt and CTranslate2 int8 under contention: synthetic OPUS-MT-sized model, beam {a.beam}, batch 32, "
          f"{a.threads} threads, {len(lines)} sentences, median of {a.runs} alternating runs, translate wall "
          f"minus load (s); slowdown = condition / quiet; {os.cpu_count()} cores"
          + (f"; CTranslate2 skipped: {reason}" if reason else "") + "\n")
    head = "| condition | " + " | ".join(f"{e} (s)" for e in engines)
    head += " | " + " | ".join(f"{e} slowdown" for e in engines) if base else ""
    head += " | " + " | ".join(f"nmt / {e}" for e in engines if e != "nmt") + " |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for c in conditions:
        row = f"| {c} | " + " | ".join(f"{med[c][e]:.2f}" if med[c][e] < math.inf else f"> {a.run_limit}"
                                       for e in engines)
        if base:
            row += " | " + " | ".join(f"{med[c][e] / base[e]:.2f}x" for e in engines)
        row += " | " + " | ".join(f"{med[c][e] / med[c]['nmt']:.2f}x" for e in engines if e != "nmt") + " |"
        print(row)
    distinct = len(set(outputs.values()))
    print(f"\nnmt outputs across {len(outputs)} runs: "
          + ("byte-identical" if distinct == 1 else f"{distinct} DIFFERENT versions"))
    os.makedirs(common.WORK, exist_ok=True)
    with open(os.path.join(common.WORK, "contention-results.json"), "a", encoding="utf-8") as f:
        f.write(json.dumps({"threads": a.threads, "sentences": len(lines), "times": times}) + "\n")
    return 0 if distinct == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
