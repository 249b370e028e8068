#!/usr/bin/env python3
"""What a document costs `nmt serve`: each fixture document uploaded to /translate_file N times, one after
another, and downloaded; prints the median and p90 latency per document and the server's peak RSS. Run it
against two builds to compare (the fork per document of docs/serve.md against translating in-process).
Usage: serve_documents.py [--nmt build/nmt] [--model DIR] [--repeats N]"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import time

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "documents")


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nmt", default=os.path.join(ROOT, "build", "nmt"))
    ap.add_argument("--model", default=os.path.join(ROOT, "data", "multi30k-en-de"))
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--documents", nargs="*", default=["page.html", "report.docx", "guide.md"])
    a = ap.parse_args()
    server = subprocess.Popen([a.nmt, "serve", "--port", "0", "--threads", "2", "-m", a.model,
                               "--max-chars", "1000000"],
                              stderr=subprocess.PIPE, text=True)
    try:
        run(a, server)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


def run(a, server):
    url = "http://%s:%s" % re.search(r"http://([0-9.]+):(\d+)/", server.stderr.readline()).groups()
    requests.post(url + "/translate", json={"q": "Warm up.", "source": "en", "target": "de"}, timeout=60)
    print(f"| document | bytes | median ms | p90 ms |")
    print(f"|---|---|---|---|")
    for name in a.documents:
        with open(os.path.join(FIXTURES, name), "rb") as f:
            data = f.read()
        times = []
        for _ in range(a.repeats):
            start = time.perf_counter()
            r = requests.post(url + "/translate_file", files={"file": (name, data)},
                              data={"source": "en", "target": "de"}, timeout=120)
            r.raise_for_status()
            requests.get(r.json()["translatedFileUrl"], timeout=60).raise_for_status()
            times.append(time.perf_counter() - start)
        times.sort()
        print(f"| {name} | {len(data)} | {statistics.median(times) * 1000:.0f} | "
              f"{times[int(0.9 * (len(times) - 1))] * 1000:.0f} |")
    print(f"server peak RSS {status_kb(server.pid, 'VmHWM') / 1024:.0f} MB, "
          f"RSS now {status_kb(server.pid, 'VmRSS') / 1024:.0f} MB")


if __name__ == "__main__":
    main()
