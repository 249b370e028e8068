#!/usr/bin/env python3
"""Load test of `nmt serve`: N clients on loopback send one sentence per request for a bounded time.

Prints throughput (sentences/s) and p50/p99 latency, next to `nmt translate` on the same sentences with the
same --threads, checks every answer against the CLI's translation, and reports the server's peak RSS.
`make bench-serve` (SERVE_BENCH_ARGS=...) runs it; `make bench BENCH_SERVE=1` adds it after the table.
"""
import argparse
import gzip
import os
import re
import signal
import subprocess
import sys
import threading
import time

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_INPUT = os.path.join(ROOT, "..", "shared", "data", "multi30k", "test_2016_flickr.en.gz")


def read_sentences(path, n):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    return lines[:n] if n else lines


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


def cli_run(nmt, sentences, threads):
    start = time.perf_counter()
    out = subprocess.run([nmt, "translate", "-q", "--threads", str(threads)], input="\n".join(sentences) + "\n",
                         capture_output=True, text=True, check=True)
    return out.stdout.splitlines(), time.perf_counter() - start


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def current_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def load_run(a, url, sentences, expected):
    """One run: a.clients clients for a.seconds; their latencies, mismatches and errors."""
    latencies, mismatches, errors = [], [], []
    lock = threading.Lock()
    next_index = [0]
    deadline = time.perf_counter() + a.seconds

    def client():
        session = requests.Session()
        while time.perf_counter() < deadline:
            with lock:
                i = next_index[0] % len(sentences)
                next_index[0] += 1
            start = time.perf_counter()
            try:
                r = session.post(url, json={"q": sentences[i], "source": "en", "target": "de"}, timeout=120)
                ok = r.status_code == 200
                text = r.json().get("translatedText") if ok else r.text
            except requests.RequestException as e:
                ok, text = False, str(e)
            elapsed = time.perf_counter() - start
            with lock:
                if not ok:
                    errors.append(text)
                else:
                    latencies.append(elapsed)
                    if text != expected[i]:
                        mismatches.append((sentences[i], text, expected[i]))

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(a.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"latencies": latencies, "mismatches": mismatches, "errors": errors,
            "wall": time.perf_counter() - started}


def print_run(number, row, a):
    n = len(row["latencies"])
    print(f"run {number}/{a.runs}: {n} answers, {n / row['wall']:.1f}/s, p99 "
          f"{percentile(row['latencies'], 99) * 1000:.0f} ms, lost {len(row['errors'])}, "
          f"differing from the CLI {len(row['mismatches'])}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nmt", default=os.path.join(ROOT, "build", "nmt"))
    ap.add_argument("--input", default=DEFAULT_INPUT, help="source sentences, plain or .gz")
    ap.add_argument("--sentences", type=int, default=0, help="the first N sentences (default: all)")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=30, help="length of one run")
    ap.add_argument("--runs", type=int, default=1, help="runs one after another against one server")
    ap.add_argument("--threads", type=int, default=2, help="--threads of both the server and the CLI")
    ap.add_argument("--batch-wait", type=int, default=5, help="the server's --batch-wait (ms)")
    a = ap.parse_args()

    sentences = read_sentences(a.input, a.sentences)
    expected, cli_seconds = cli_run(a.nmt, sentences, a.threads)
    cli_rate = len(sentences) / cli_seconds

    server = subprocess.Popen([a.nmt, "serve", "--port", "0", "--threads", str(a.threads), "--batch-wait",
                               str(a.batch_wait), "--max-connections", str(max(64, a.clients))],
                              stderr=subprocess.PIPE, text=True)
    url = "http://%s:%s/translate" % re.search(r"http://([0-9.]+):(\d+)/", server.stderr.readline()).groups()
    rows = []
    try:
        for run in range(a.runs):
            rows.append(load_run(a, url, sentences, expected))
            if a.runs > 1:
                print_run(run + 1, rows[-1], a)
        peak = peak_rss_mb(server.pid)
        time.sleep(1)  # idle: the server returns what the peak freed
        idle = current_rss_mb(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    latencies = [x for row in rows for x in row["latencies"]]
    mismatches = [x for row in rows for x in row["mismatches"]]
    errors = [x for row in rows for x in row["errors"]]
    wall = sum(row["wall"] for row in rows)
    rate = len(latencies) / wall
    print(f"| engine | sentences | sentences/s | p50 ms | p99 ms |")
    print(f"|---|---|---|---|---|")
    print(f"| nmt translate --threads {a.threads} | {len(sentences)} | {cli_rate:.1f} | | |")
    print(f"| nmt serve, {a.clients} clients x {a.seconds:g} s x {a.runs} | {len(latencies)} | {rate:.1f} "
          f"({rate / cli_rate:.0%} of the CLI) | {percentile(latencies, 50) * 1000:.0f} | "
          f"{percentile(latencies, 99) * 1000:.0f} |")
    print(f"answers equal to the CLI's: {len(latencies) - len(mismatches)}/{len(latencies)}; errors: {len(errors)}; "
          f"server peak RSS {peak:.0f} MB, {idle:.0f} MB idle after; exit {server.returncode}")
    if a.runs > 1:
        print(f"worst run's p99 {max(percentile(r['latencies'], 99) for r in rows) * 1000:.0f} ms; "
              f"runs with a lost request: {sum(1 for r in rows if r['errors'])}/{a.runs}")
    for m in mismatches[:3]:
        print("mismatch:", m, file=sys.stderr)
    for e in errors[:3]:
        print("error:", e, file=sys.stderr)
    return 1 if mismatches or errors or server.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
