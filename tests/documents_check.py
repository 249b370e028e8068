#!/usr/bin/env python3
"""Round-trip properties of `nmt translate --format` on the document fixtures (docs/formats.md).

HTML: the output is well nested (every end tag closes the element open last, void elements aside); it has
the same multiset of elements and attribute names as the input, the same attribute values but for alt,
title, placeholder and aria-label; never-translated elements (script, style, code, pre, translate="no",
notranslate) and protected spans (URLs, e-mail addresses) byte-identical, each as often as in the input;
every number's digits kept; a block without inline markup reads exactly as `nmt translate` of its text,
and a block with inline markup has the same words as `nmt translate` of its text without the markup.
Subtitles: the same cues with byte-identical index, timing and settings lines; no cue left empty; the
words of a sentence's cues are the words of `nmt translate` of the sentence.

Usage: documents_check.py NMT_BINARY MODEL_DIR FIXTURE...
"""
import collections
import html.parser
import re
import subprocess
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
TRANSLATED_ATTRIBUTES = {"alt", "title", "placeholder", "aria-label"}
KEPT = re.compile(r"<(script|style|code|pre|kbd|samp|var|textarea)\b.*?</\1>", re.S)
NO_TRANSLATE = re.compile(r"<(\w+)\b[^>]*(?:translate=\"no\"|class=\"[^\"]*\bnotranslate\b)[^>]*>.*?</\1>", re.S)
PROTECTED = re.compile(r"(?:https?|ftp)://[^\s<>\"]+|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "td", "th", "title", "dt", "dd"}
failures = []


def fail(fixture, text):
    failures.append(f"{fixture}: {text}")


def translate_lines(nmt, model, lines):
    if not lines:
        return []
    out = subprocess.run([nmt, "translate", "-q", "-m", model, "-b", "1"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    return out.split("\n")[:len(lines)]


class Structure(html.parser.HTMLParser):
    """Elements, attributes and blocks of an HTML text; `errors` lists where it is not well nested."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.elements = [], [], collections.Counter()
        self.values = collections.Counter()
        self.blocks = []  # [tag, text, has inline markup]
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        self.elements[(tag, tuple(sorted(name for name, _ in attrs)))] += 1
        for name, value in attrs:
            if name not in TRANSLATED_ATTRIBUTES:
                self.values[(tag, name, value)] += 1
        kept = tag in ("script", "style", "code", "pre") or ("translate", "no") in attrs or \
            any(n == "class" and "notranslate" in (v or "").split() for n, v in attrs)
        if tag in BLOCKS and not self.skip:
            self.blocks.append([tag, "", False])
        elif self.blocks and self.stack and tag not in VOID:
            self.blocks[-1][2] = True
        if tag not in VOID:
            self.stack.append((tag, kept))
            self.skip += kept

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes {self.stack[-1][0] if self.stack else 'nothing'}")
            return
        self.skip -= self.stack.pop()[1]

    def handle_data(self, data):
        if self.blocks and not self.skip and any(t in BLOCKS for t, _ in self.stack):
            self.blocks[-1][1] += data


def parse(text):
    s = Structure()
    s.feed(text)
    s.close()
    if s.stack:
        s.errors.append("unclosed " + " ".join(t for t, _ in s.stack))
    return s


def words(text):
    return " ".join(text.split())


def check_html(nmt, model, fixture, source, output):
    before, after = parse(source), parse(output)
    for e in after.errors:
        fail(fixture, "not well nested: " + e)
    if before.elements != after.elements:
        fail(fixture, f"elements differ: {before.elements - after.elements} vs {after.elements - before.elements}")
    if before.values != after.values:
        fail(fixture, f"attribute values differ: {before.values - after.values}")
    for pattern in (KEPT, NO_TRANSLATE, PROTECTED):
        for match in set(m.group(0) for m in pattern.finditer(source)):
            if output.count(match) != source.count(match):
                fail(fixture, f"{match[:40]!r} is in the output {output.count(match)} times, not {source.count(match)}")
    for number in set(re.findall(r"\d+", re.sub(r"<[^>]*>", "", source))):
        if number not in output:
            fail(fixture, f"the number {number} is missing")
    if len(before.blocks) != len(after.blocks):
        fail(fixture, f"{len(before.blocks)} blocks in, {len(after.blocks)} out")
        return
    texts = [words(b[1]) for b in before.blocks]
    plain = translate_lines(nmt, model, texts)
    for (tag, _, markup), out, expected, src in zip(before.blocks, after.blocks, plain, texts):
        got = words(out[1])
        if PROTECTED.search(src):
            continue  # the model reads the text without its protected spans
        if got != words(expected):
            fail(fixture, f"<{tag}> {src!r}: {got!r}, plain translation {expected!r}" +
                 (" (with markup)" if markup else ""))


CUE_TIMING = re.compile(r"-->")


def cues(text):
    blocks = re.split(r"\r?\n[ \t]*\r?\n", text.strip("\r\n"))
    out = []
    for b in blocks:
        lines = b.splitlines()
        timing = next((i for i, l in enumerate(lines) if CUE_TIMING.search(l)), None)
        if timing is None:
            out.append((b, None))
        else:
            out.append(("\n".join(lines[:timing + 1]), " ".join(lines[timing + 1:])))
    return out


def check_subtitles(nmt, model, fixture, source, output):
    before, after = cues(source), cues(output)
    if len(before) != len(after):
        fail(fixture, f"{len(before)} blocks in, {len(after)} out")
        return
    sentences, current, translated = [], [], []
    for (head_in, text_in), (head_out, text_out) in zip(before, after):
        if head_in != head_out:
            fail(fixture, f"cue head changed: {head_in!r} -> {head_out!r}")
        if text_in is None:
            continue
        if not text_out.strip():
            fail(fixture, f"cue {head_in!r} left empty")
        plain_in = re.sub(r"<[^>]*>", "", text_in)
        current.append(plain_in)
        translated.append(re.sub(r"<[^>]*>", "", text_out))
        if re.search(r"[.!?:;]\W*$", plain_in):
            sentences.append((" ".join(current), " ".join(translated)))
            current, translated = [], []
    if current:
        sentences.append((" ".join(current), " ".join(translated)))
    plain = translate_lines(nmt, model, [words(s) for s, _ in sentences])
    for (src, got), expected in zip(sentences, plain):
        if words(got) != words(expected):
            fail(fixture, f"{src!r}: {words(got)!r}, plain translation {expected!r}")
    for tag in set(re.findall(r"</?[a-z]+>", source)):
        if source.count(tag) != output.count(tag):
            fail(fixture, f"{tag} {source.count(tag)} times in, {output.count(tag)} out")


def main():
    nmt, model, fixtures = sys.argv[1], sys.argv[2], sys.argv[3:]
    for fixture in fixtures:
        source = open(fixture, encoding="utf-8").read()
        run = subprocess.run([nmt, "translate", "-m", model, "-b", "1", "-i", fixture], capture_output=True,
                             text=True)
        if run.returncode != 0:
            fail(fixture, f"exit {run.returncode}: {run.stderr}")
            continue
        sys.stderr.write(run.stderr)
        (check_subtitles if fixture.endswith((".srt", ".vtt")) else check_html)(nmt, model, fixture, source, run.stdout)
        print(f"{fixture}: checked")
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
