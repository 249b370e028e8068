#!/usr/bin/env python3
"""Peak RSS of `nmt translate -i page.html` against the page's size (docs/formats.md, Limits).

Generates HTML pages of the given sizes (sections of paragraphs with inline markup, lists, tables, scripts,
comments and never-translated blocks), translates each with MODEL_DIR and prints size, seconds and peak RSS
of the child (getrusage). With --check, exits 1 unless the biggest page's peak RSS stays under the
smallest's plus --margin-mb and the output keeps every block of the page translated, in order, with the
same multiset of elements.

  tools/html_memory.py --nmt build/nmt --model tests/fixtures/paper/model --sizes-mb 0.2,5,20,50
"""
import argparse
import collections
import html.parser
import os
import random
import sys
import tempfile
import time

WORDS = ("a man woman dog girl boy two three is are running walking sitting standing on in the park street "
         "grass bench ball red blue small with near water bike shirt").split()


def sentence(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(4, 10))]
    return " ".join(words).capitalize() + "."


def section(rng, index):
    """One top-level block of the page, in the shapes real pages have."""
    s = lambda: sentence(rng)  # noqa: E731
    return (f'<section id="s{index}">\n<h2 title="{s()}">{s()}</h2>\n'
            f'<p>{s()} A <b>{rng.choice(WORDS)}</b> {s()} <a href="https://example.com/{index}">{s()}</a></p>\n'
            f'<p>{s()}<br>{s()} <em>{s()}</em></p>\n'
            f'<ul>\n  <li>{s()}</li>\n  <li>{s()} <code>x = {index}</code></li>\n</ul>\n'
            f'<table>\n  <tr><td>{s()}</td><td>{index}</td></tr>\n</table>\n'
            f'<script>var item{index} = "{s()}";</script>\n<!-- {s()} -->\n'
            f'<p translate="no">{s()}</p>\n<img src="i{index}.jpg" alt="{s()}">\n</section>\n')


def make_page(path, size_bytes, seed=1):
    rng = random.Random(seed)
    with open(path, "w") as out:
        out.write('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                  '<title>A dog in the park</title>\n<style>p { color: #333; }</style>\n</head>\n<body>\n'
                  '<div class="page">\n')
        written, index = 0, 0
        while written < size_bytes:
            block = section(rng, index)
            out.write(block)
            written += len(block)
            index += 1
        out.write("</div>\n</body>\n</html>\n")


def run(nmt, model, page, out):
    """Seconds and peak RSS (KiB) of one translation, in a child of its own."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(nmt, [nmt, "translate", "-q", "-m", model, "-i", page, "-o", out])
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"html_memory: nmt failed on {page} ({os.waitstatus_to_exitcode(status)})")
    return time.monotonic() - start, usage.ru_maxrss


class Blocks(html.parser.HTMLParser):
    """Element multiset and the number of translatable blocks."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = collections.Counter()

    def handle_starttag(self, tag, attrs):
        self.elements[tag] += 1


def structure(path):
    parser = Blocks()
    with open(path) as f:
        for chunk in iter(lambda: f.read(1 << 20), ""):
            parser.feed(chunk)
    parser.close()
    return parser.elements


def check_blocks(page, out):
    """Every block of the page translated, every kept line kept: the page's lines stay lines."""
    with open(page) as a, open(out) as b:
        source, target = a.read().split("\n"), b.read().split("\n")
    if len(source) != len(target):
        sys.exit(f"html_memory: {len(source)} lines in, {len(target)} out")
    for number, (s, t) in enumerate(zip(source, target), 1):
        kept = s.startswith(("<script", "<!--", '<p translate="no">', "<section", "</"))
        translated = s.startswith(("<p>", "  <li>", "<h2", "  <tr>"))
        if (kept and s != t) or (translated and s == t):
            sys.exit(f"html_memory: line {number} {'changed' if kept else 'untranslated'}: {t[:120]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nmt", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--sizes-mb", default="0.2,5,20,50", help="comma-separated page sizes")
    parser.add_argument("--check", action="store_true", help="fail unless RSS stays bounded")
    parser.add_argument("--margin-mb", type=float, default=40.0,
                        help="with --check: the biggest page's allowed peak RSS over the smallest's")
    args = parser.parse_args()
    sizes = [float(s) for s in args.sizes_mb.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            page, out = os.path.join(tmp, "page.html"), os.path.join(tmp, "out.html")
            make_page(page, int(size * 1e6))
            seconds, rss = run(args.nmt, args.model, page, out)
            actual = os.path.getsize(page)
            rows.append((actual, seconds, rss))
            print(f"{actual / 1e6:8.1f} MB page  {seconds:7.1f} s  peak RSS {rss / 1024:7.1f} MiB", flush=True)
            if args.check and size == sizes[-1]:
                before, after = structure(page), structure(out)
                if before != after:
                    sys.exit(f"html_memory: elements differ: {sorted((before - after).items())[:5]} "
                             f"{sorted((after - before).items())[:5]}")
                check_blocks(page, out)
    if args.check:
        small, big = rows[0][2], rows[-1][2]
        bound = small + args.margin_mb * 1024
        if big > bound:
            sys.exit(f"html_memory: a {rows[-1][0] / 1e6:.1f} MB page peaks at {big / 1024:.1f} MiB, over "
                     f"{bound / 1024:.1f} MiB (the {rows[0][0] / 1e6:.2f} MB page's {small / 1024:.1f} MiB "
                     f"+ {args.margin_mb:.0f} MiB)")
        print(f"html_memory: bounded ({big / 1024:.1f} MiB <= {bound / 1024:.1f} MiB)")


if __name__ == "__main__":
    main()
