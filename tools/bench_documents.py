"""The documents row of `make bench` (tools/bench.py): the same sentences translated as plain lines and as
an HTML page, one <p> per sentence and every other one with its second word in <b>, runs alternating.
The rate of a run is sentences over its wall time (model loading included, the same for both); the ratio
is the median of each adjacent pair's html/plain rate, and the page's paragraphs must read word for word
as the plain lines (the markup projection never changes the words)."""
import html
import os
import re
import statistics
import subprocess
import time


def write_page(sentences, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n<html><body>\n")
        for i, s in enumerate(sentences):
            words = [html.escape(w) for w in s.split()]
            if i % 2 == 0 and len(words) > 2:
                words[1] = "<b>" + words[1] + "</b>"
            f.write("<p>" + " ".join(words) + "</p>\n")
        f.write("</body></html>\n")


def paragraphs_of(path):
    with open(path, encoding="utf-8") as f:
        page = f.read()
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", "", p)).split()) for p in re.findall(r"<p>(.*?)</p>", page)]


def document_speed(nmt, model, lines, tmp, beam, threads, runs, n_sentences=300):
    sentences = [s for s in lines if s.strip()][:n_sentences]
    plain = os.path.join(tmp, "doc-plain.txt")
    page = os.path.join(tmp, "doc-page.html")
    with open(plain, "w", encoding="utf-8") as f:
        f.write("".join(" ".join(s.split()) + "\n" for s in sentences))
    write_page(sentences, page)
    seconds = {"plain": [], "html": []}
    for _ in range(runs):
        for kind, src, out in (("plain", plain, "doc-plain.out"), ("html", page, "doc-page.out.html")):
            cmd = [nmt, "translate", "-q", "-m", model, "-i", src, "-o", os.path.join(tmp, out), "-b", str(beam),
                   "--threads", str(threads)]
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True)
            seconds[kind].append(time.perf_counter() - t0)
    with open(os.path.join(tmp, "doc-plain.out"), encoding="utf-8") as f:
        plain_out = [" ".join(line.split()) for line in f.read().split("\n")[:len(sentences)]]
    same = sum(a == b for a, b in zip(paragraphs_of(os.path.join(tmp, "doc-page.out.html")), plain_out))
    pairs = [p / h for p, h in zip(seconds["plain"], seconds["html"])]
    return {"sentences": len(sentences), "beam": beam, "threads": threads, "seconds": seconds,
            "ratio": statistics.median(pairs), "same_words": same}


def document_row(d):
    return (f"documents ({d['sentences']} sentences, beam {d['beam']}, {d['threads']} threads): as an HTML page "
            f"{statistics.median(d['seconds']['html']):.1f} s, as plain lines "
            f"{statistics.median(d['seconds']['plain']):.1f} s: the page at {d['ratio']:.2f}x the plain rate "
            f"(median of alternating pairs), {d['same_words']}/{d['sentences']} paragraphs word for word the "
            f"plain translation")
