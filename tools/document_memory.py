#!/usr/bin/env python3
"""Peak RSS of `nmt translate` on a one-paragraph Markdown file and on a subtitle file against their size
(docs/formats.md, Limits).

Generates a Markdown file that is one paragraph of the given size and an SRT file of the given size (cues of
a sentence or half of one), translates each with MODEL_DIR and prints size, seconds and peak RSS of the child
(getrusage). With --check, exits 1 unless the biggest file's peak RSS of each kind stays under the smallest's
plus its input's growth (the bytes read and decoded) plus --margin-mb, and the output keeps every cue's
timing and the paragraph one paragraph.

  tools/document_memory.py --nmt build/nmt --model tests/fixtures/paper/model --markdown-mb 0.25,1 --srt-mb 1,50
"""
import argparse
import os
import random
import re
import sys
import tempfile
import time

WORDS = ("a man woman dog girl boy two three is are running walking sitting standing on in the park street "
         "grass bench ball red blue small with near water bike shirt").split()


def sentence(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 10))).capitalize() + "."


def make_markdown(path, size_bytes, seed=1):
    """One paragraph, one line: the alignment and the projection see it whole."""
    rng = random.Random(seed)
    with open(path, "w") as out:
        written = 0
        while written < size_bytes:
            s = sentence(rng) + " "
            out.write(s)
            written += len(s)
        out.write("\n")


def timestamp(ms):
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def make_srt(path, size_bytes, seed=1):
    """Cues of a sentence, or of half of one running on into the next cue."""
    rng = random.Random(seed)
    with open(path, "w") as out:
        written, index = 0, 0
        while written < size_bytes:
            index += 1
            words = sentence(rng).split()
            text = " ".join(words[:len(words) // 2]) if index % 3 == 0 else " ".join(words)
            start = index * 2000
            cue = f"{index}\n{timestamp(start)} --> {timestamp(start + 1500)}\n{text}\n\n"
            out.write(cue)
            written += len(cue)


def run(nmt, model, source, out, extra):
    """Seconds and peak RSS (KiB) of one translation, in a child of its own."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(nmt, [nmt, "translate", "-q", "-m", model, "-i", source, "-o", out] + extra)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"document_memory: nmt failed on {source} ({os.waitstatus_to_exitcode(status)})")
    return time.monotonic() - start, usage.ru_maxrss


def check_output(kind, source, out):
    with open(source) as a, open(out) as b:
        before, after = a.read(), b.read()
    if kind == "srt":
        timings = [re.findall(r"^\d\d:\d\d:\d\d,\d\d\d --> .*$", text, re.M) for text in (before, after)]
        if timings[0] != timings[1]:
            sys.exit("document_memory: the cues' timings differ")
    elif after.count("\n") != 1:
        sys.exit(f"document_memory: the paragraph came back as {after.count(chr(10))} lines")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nmt", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--markdown-mb", default="", help="comma-separated paragraph sizes")
    parser.add_argument("--srt-mb", default="", help="comma-separated subtitle file sizes")
    parser.add_argument("--max-length", default="", help="--max-length for nmt (a short bound runs faster)")
    parser.add_argument("--check", action="store_true", help="fail unless RSS stays bounded")
    parser.add_argument("--margin-mb", type=float, default=30.0,
                        help="with --check: the biggest file's allowed peak RSS over the smallest's and its input")
    args = parser.parse_args()
    extra = ["--max-length", args.max_length] if args.max_length else []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for kind, sizes, make in (("md", args.markdown_mb, make_markdown), ("srt", args.srt_mb, make_srt)):
            rows = []
            for size in [float(s) for s in sizes.split(",") if s]:
                source, out = os.path.join(tmp, "in." + kind), os.path.join(tmp, "out." + kind)
                make(source, int(size * 1e6))
                seconds, rss = run(args.nmt, args.model, source, out, extra)
                actual = os.path.getsize(source)
                rows.append((actual, rss))
                print(f"{kind:>3} {actual / 1e6:8.2f} MB  {seconds:7.1f} s  peak RSS {rss / 1024:7.1f} MiB", flush=True)
                check_output(kind, source, out)
            if args.check and len(rows) > 1:
                (small_size, small), (big_size, big) = rows[0], rows[-1]
                # The input is read whole (and held as text once more where a reader copies it).
                bound = small + (2 * (big_size - small_size)) / 1024 + args.margin_mb * 1024
                verdict = "bounded" if big <= bound else "NOT bounded"
                failed = failed or big > bound
                print(f"document_memory: {kind} {verdict} ({big / 1024:.1f} MiB, bound {bound / 1024:.1f} MiB: "
                      f"{small / 1024:.1f} MiB + twice the {(big_size - small_size) / 1e6:.1f} MB more input "
                      f"+ {args.margin_mb:.0f} MiB)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
