"""The hostile documents of tests/hostile/make_documents.py (nesting 25,000-50,000 deep in HTML, XML,
Markdown, DOCX, ODT and EPUB; a zip member inflating to 200 MB; members that lie about their size; 25,000
members; 40 kB lines) sent to /translate_file, each translated in its own child process: every one is
answered (200, or an error in LibreTranslate's JSON: 503 past --request-timeout, its child stopped), /health
says ok after each, and the server's peak RSS stays under the bound docs/serve.md states, since a
document's memory is its child's."""
import os
import subprocess
import sys
import tempfile

from serve_support import SENTENCES, Server, check, cli_translate, sanitized

PEAK_BOUND_MB = 400  # docs/serve.md, "Memory": the server's own peak while hostile documents are translated
HERE = os.path.dirname(os.path.abspath(__file__))

nmt = sys.argv[1]
expected = cli_translate(nmt, SENTENCES[:1])[0]


def rss_mb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, os.path.join(HERE, "..", "hostile", "make_documents.py"), tmp], check=True,
                   env={**os.environ, "INFLATE_MB": "200"})
    # A 3 s deadline: the documents that would take longer (a 40 kB line) are stopped sooner.
    with Server(nmt, "--max-chars", "10000000", "--max-body", str(8 << 20), "--request-timeout", "3") as s:
        for name in sorted(os.listdir(tmp)):
            with open(os.path.join(tmp, name), "rb") as f:
                data = f.read()
            r = s.post("/translate_file", files={"file": (name, data)}, data={"source": "en", "target": "de"})
            answered = r.status_code == 200 and "translatedFileUrl" in r.json() or \
                r.status_code in (400, 500, 503) and "error" in r.json()
            health = s.get("/health")
            check(answered and health.status_code == 200 and health.json()["status"] == "ok",
                  f"{name} ({len(data)} bytes): {r.status_code} {r.text[:160]}; /health ok")
        peak = rss_mb(s.proc.pid, "VmHWM")
        if not sanitized(nmt):  # ASan's RSS is its shadow's and its quarantine's
            check(peak < PEAK_BOUND_MB, f"server peak RSS {peak:.0f} MB under {PEAK_BOUND_MB} MB")
        r = s.post("/translate", json={"q": SENTENCES[0], "source": "en", "target": "de"})
        check(r.status_code == 200 and r.json()["translatedText"] == expected, "translating after them")
        status, err = s.stop()
        check(status == 0, f"exit {status}")
print("all passed")
