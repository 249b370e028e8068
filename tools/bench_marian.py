#!/usr/bin/python3
"""`make bench-marian`: nmt and marian-decoder on the same Marian student (a Firefox / Bergamot-shaped model:
SSRU decoder, int8 weights, lexical shortlist), runs alternating (nmt, Marian, nmt, ...), when marian-decoder
is installed under /opt/marian (built there by hand from browsermt/marian-dev; never a dependency of nmt).
Otherwise skipped, with the reason.

  /usr/bin/python3 tools/bench_marian.py --nmt build/nmt --model DIR [--lines 1000] [--runs 3]

DIR is a Marian release as marian-decoder reads it: a decoder.yml (or a Bergamot config*.yml) naming the
model (e.g. marian-conv's model.intgemm.alphas.bin), the vocabularies and the shortlist, with the
gemm-precision to run (Firefox: int8shiftAlphaAll). nmt converts it (`nmt convert --from marian-npz`, which
keeps the int8 values and Marian's int8 arithmetic) and both translate the same lines, greedy, with the
shortlist, batches of 32 sentences (nmt --batch-size 32 --no-split, Marian --mini-batch 32 --maxi-batch 100),
on 1 and 2 threads (nmt --threads, Marian --cpu-threads). Rows: translate time (wall minus load: a run
of one line is each engine's load), words/s of output, peak RSS, the ratio Marian's time / nmt's (median of
the alternating pairs), and the share of identical lines.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from bench_common import DEFAULT_INPUT, read_input, run_measured

MARIAN = os.environ.get("NMT_BENCH_MARIAN", "/opt/marian")


def unavailable_reason(marian=MARIAN):
    decoder = os.path.join(marian, "bin", "marian-decoder")
    if not os.access(decoder, os.X_OK):
        return f"no {decoder}: Marian is not installed there (it is built by hand; nmt never builds it)"
    return None


def decoder_config(model_dir):
    for name in ["decoder.yml"] + sorted(f for f in os.listdir(model_dir) if f.startswith("config") and f.endswith(".yml")):
        if os.path.exists(os.path.join(model_dir, name)):
            return os.path.join(model_dir, name)
    sys.exit(f"{model_dir}: no decoder.yml or config*.yml")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nmt", required=True)
    ap.add_argument("--model", required=True, help="a Marian release directory (decoder.yml or config*.yml)")
    ap.add_argument("--input", default=DEFAULT_INPUT)
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    lines = read_input(args.input, args.lines)
    config = decoder_config(args.model)
    with tempfile.TemporaryDirectory(prefix="nmt_bench_marian.") as work:
        converted = os.path.join(work, "nmt-model")
        subprocess.run([args.nmt, "convert", "--from", "marian-npz", args.model, "-o", converted,
                        "--source-lang", "en", "--target-lang", "de"], check=True, stdout=subprocess.DEVNULL)
        full, one = os.path.join(work, "input.txt"), os.path.join(work, "one.txt")
        with open(full, "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(one, "w") as f:
            f.write(lines[0] + "\n")
        decoder = os.path.join(MARIAN, "bin", "marian-decoder")

        def command(engine, threads):
            if engine == "nmt":
                return [args.nmt, "translate", "-q", "-m", converted, "--threads", str(threads), "-b", "1",
                        "--batch-size", "32", "--no-split", "--shortlist", "on"]
            return [decoder, "-c", config, "--cpu-threads", str(threads), "-b", "1", "--mini-batch", "32",
                    "--maxi-batch", "100", "--quiet", "--quiet-translation"]

        def run(engine, threads, path):
            out, err = os.path.join(work, engine + ".out"), os.path.join(work, engine + ".err")
            env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS=str(threads))
            cmd = ["sh", "-c", 'exec "$@" < "$0"', path] + command(engine, threads)
            code, rss, wall = run_measured(cmd, out, err, env)
            if code != 0:
                sys.exit(f"{engine} failed: {open(err).read()[-2000:]}")
            return wall, rss, open(out, encoding="utf-8").read().splitlines()

        print(f"{len(lines)} lines of {os.path.basename(args.input)}, model {args.model} ({os.path.basename(config)}), "
              f"greedy, shortlist, batch 32")
        print("| threads | engine | translate s (wall - load) | words/s | peak RSS MB | Marian / nmt | same lines |")
        print("|---|---|---|---|---|---|---|")
        for threads in (1, 2):
            times = {"nmt": [], "marian": []}
            rss = {"nmt": 0.0, "marian": 0.0}
            outputs = {}
            load = {e: min(run(e, threads, one)[0] for _ in range(2)) for e in times}
            for _ in range(args.runs):
                for engine in ("nmt", "marian"):
                    wall, peak, out = run(engine, threads, full)
                    times[engine].append(wall - load[engine])
                    rss[engine] = max(rss[engine], peak)
                    outputs[engine] = out
            ratio = statistics.median(m / n for n, m in zip(times["nmt"], times["marian"]))
            same = sum(a == b for a, b in zip(outputs["nmt"], outputs["marian"])) / len(lines)
            for engine in ("nmt", "marian"):
                t = statistics.median(times[engine])
                words = sum(len(line.split()) for line in outputs[engine])
                print(f"| {threads} | {engine} | {t:.2f} | {words / t:,.0f} | {rss[engine]:.0f} | "
                      f"{ratio:.2f}x | {100 * same:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
