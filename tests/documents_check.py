#!/usr/bin/env python3
"""Round-trip properties of `nmt translate --format` on the document fixtures (docs/formats.md).

HTML: the output is well nested (every end tag closes the element open last, void elements aside), XHTML
parses as XML; it has
the same multiset of elements and attribute names as the input, the same attribute values but for alt,
title, placeholder and aria-label; never-translated elements (script, style, code, pre, translate="no",
notranslate) and protected spans (URLs, e-mail addresses) byte-identical, each as often as in the input;
every number's digits kept (or a warning naming it); a block without inline markup reads exactly as `nmt translate` of its text,
and a block with inline markup has the same words as `nmt translate` of its text without the markup.
Markdown: front matter, code blocks and spans, link destinations, autolinks and never-translated HTML
byte-identical; the same elements as md4c reads them (tests/tools/md_elements.cc) and the same HTML tags;
the same block markers (headings, list items, quotes) and table cells; a one-line block stays one line, a
wrapped one keeps its line count within 50% with the source's continuation prefix on every line; each
block's words (markup, escapes and link destinations aside) equal to `nmt translate` of its text. DOCX (read back with python-docx): the same paragraphs, table cells and headers, each translated as its
plain text is, the same bold and italic runs, URLs kept, every package member present. ODT (read back with odfpy): the same paragraphs and headings, each its plain
translation, the same spans and links, mimetype first and stored. Subtitles: the same cues with byte-identical index, timing and settings lines; no cue left empty; the
words of a sentence's cues are the words of `nmt translate` of the sentence.

Usage: documents_check.py [--md-elements MD_ELEMENTS] NMT_BINARY MODEL_DIR FIXTURE...
MODEL_DIR may be route:SOURCE:TARGET: the model `--from SOURCE --to TARGET` picks (a pivot included).
"""
import collections
import html.parser
import os
import re
import subprocess
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
TRANSLATED_ATTRIBUTES = {"alt", "title", "placeholder", "aria-label"}
DESCRIPTIONS = {"description", "og:description", "twitter:description", "og:title", "twitter:title"}  # meta content
KEPT = re.compile(r"<(script|style|code|pre|kbd|samp|var|textarea)\b.*?</\1>", re.S)
NO_TRANSLATE = re.compile(r"<(\w+)\b[^>]*(?:translate=\"no\"|class=\"[^\"]*\bnotranslate\b)[^>]*>.*?</\1>", re.S)
PROTECTED = re.compile(r"(?:https?|ftp)://[^\s<>\"]+|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
                       r"|\{%.*?%\}|\{\{.*?\}\}|<%.*?%>|%\d+\$[sd]")  # so are templates and placeholders
# A link or superscript around no letters (a footnote mark, a back-link arrow) is kept whole, as is a text
# without letters (a version, a date).
MARK = re.compile(r"<(a|sup)\b[^>]*>(?:<[^>]*>|[^<\w]|[\d_])*?</\1>")
LETTER = re.compile(r"[^\W\d_]")
BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "td", "th", "title", "dt", "dd"}
failures = []


def fail(fixture, text):
    failures.append(f"{fixture}: {text}")


def model_args(model):
    """-m MODEL_DIR, or --from/--to for route:SOURCE:TARGET."""
    if model.startswith("route:"):
        _, source, target = model.split(":")
        return ["--from", source, "--to", target]
    return ["-m", model]


def translate_lines(nmt, model, lines):
    if not lines:
        return []
    out = subprocess.run([nmt, "translate", "-q", *model_args(model), "-b", "1"], input="\n".join(lines) + "\n",
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
        described = tag == "meta" and dict(attrs).get("name", dict(attrs).get("property")) in DESCRIPTIONS
        for name, value in attrs:
            if tag == "html" and name in ("lang", "xml:lang"):  # the page's language: the target's
                self.values[(tag, name, "<the target language>")] += 1
            elif name not in TRANSLATED_ATTRIBUTES and not (described and name == "content"):
                self.values[(tag, name, value)] += 1
        kept = tag in ("script", "style", "code", "pre", "kbd", "samp", "var", "textarea") or ("translate", "no") in attrs or \
            any(n == "class" and "notranslate" in (v or "").split() for n, v in attrs)
        if tag in BLOCKS and not self.skip:
            self.blocks.append([tag, "", False])
        elif self.blocks and self.stack and tag not in VOID:
            self.blocks[-1][2] = True
        elif self.blocks and tag in VOID and not self.skip:
            self.blocks[-1][1] += " "  # a line break or image separates words
        if tag not in VOID:
            self.stack.append((tag, kept))
            self.skip += kept

    def handle_startendtag(self, tag, attrs):  # <br/>, <img/> in XHTML
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

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


def check_html(nmt, model, fixture, source, output, stderr):
    if fixture.endswith(".xhtml"):  # XHTML must stay XML: a strict parser reads it
        import xml.etree.ElementTree
        try:
            xml.etree.ElementTree.fromstring(output.encode("utf-8"))
        except xml.etree.ElementTree.ParseError as e:
            fail(fixture, f"not well-formed XML: {e}")
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
    for number in set(re.findall(r"\d+", html.unescape(re.sub(r"<[^>]*>", " ", source)))):
        if number not in output and f"lacks the number {number}" not in stderr:
            fail(fixture, f"the number {number} is missing, without a warning")
    if len(before.blocks) != len(after.blocks):
        fail(fixture, f"{len(before.blocks)} blocks in, {len(after.blocks)} out")
        return
    before, after = parse(MARK.sub("", source)), parse(MARK.sub("", output))  # the words the model reads
    texts = [words(b[1]) for b in before.blocks]
    plain = translate_lines(nmt, model, texts)
    for (tag, _, markup), out, expected, src in zip(before.blocks, after.blocks, plain, texts):
        got = words(out[1])
        if PROTECTED.search(src) or not LETTER.search(src):
            continue  # the model reads the text without its protected spans, and no text without letters
        if got != words(expected):
            fail(fixture, f"<{tag}> {src!r}: {got!r}, plain translation {expected!r}" +
                 (" (with markup)" if markup else ""))


CUE_TIMING = re.compile(r"\d.*-->.*\d")  # a timing line; one inside a block's text starts the next cue


def cues(text):
    blocks = re.split(r"\r?\n[ \t]*\r?\n", text.strip("\r\n"))
    out = []
    for b in blocks:
        lines = b.splitlines()
        timings = [i for i, l in enumerate(lines) if CUE_TIMING.search(l)]
        if not timings:
            out.append((b, None))
            continue
        out.append(("\n".join(lines[:timings[0] + 1]), None) if timings[0] + 1 in timings[1:2] else
                   ("\n".join(lines[:timings[0] + 1]), "\n".join(lines[timings[0] + 1:(timings[1:] + [None])[0]])))
        for k, t in enumerate(timings[1:], 1):
            following = (timings[k + 1:] + [len(lines)])[0]
            out.append((lines[t], "\n".join(lines[t + 1:following]) if following > t + 1 else None))
    return out


def cue_plain(text):
    """A cue's words: no tags, SSA/ASS override blocks, entities or bidi marks."""
    text = html.unescape(re.sub(r"<[^>]*>|\{\\[^}]*\}", "", text.replace("\n", " ")))
    return text.replace("\u200e", "").replace("\u200f", "")


def check_subtitles(nmt, model, fixture, source, output, stderr):
    before, after = cues(source), cues(output)
    if len(before) != len(after):
        fail(fixture, f"{len(before)} blocks in, {len(after)} out")
        return
    sentences, current, translated, last_end = [], [], [], None
    for (head_in, text_in), (head_out, text_out) in zip(before, after):
        if head_in != head_out:
            fail(fixture, f"cue head changed: {head_in!r} -> {head_out!r}")
        if text_in is None:
            continue
        times = [sum(float(x) * 60 ** i for i, x in enumerate(reversed(t.replace(",", ".").split(":"))))
                 for t in re.findall(r"(?:\d+:)?\d+:\d+[.,]\d{3}", head_in.split("\n")[-1])]
        if current and len(times) == 2 and last_end is not None and times[0] - last_end > 2:
            sentences.append((" ".join(current), " ".join(translated)))  # a pause ends the sentence
            current, translated = [], []
        last_end = times[1] if len(times) == 2 else None
        if not (text_out or "").strip():
            fail(fixture, f"cue {head_in!r} left empty")
            continue
        lines_in, lines_out = text_in.split("\n"), text_out.split("\n")
        if len(lines_in) > 1 and all(line.startswith("-") for line in lines_in):  # dialogue: a line a sentence
            if len(lines_out) != len(lines_in):
                fail(fixture, f"cue {head_in!r}: {len(lines_in)} dialogue lines in, {len(lines_out)} out")
            sentences.extend(zip((cue_plain(t)[1:] for t in lines_in), (cue_plain(t)[1:] for t in lines_out)))
            continue
        plain_in = cue_plain(text_in)
        current.append(plain_in)
        translated.append(cue_plain(text_out))
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


MD_LINE = re.compile(r"^([ \t>]*)((?:[-*+] |\d+[.)] |#+ )?)(.*)$")
MD_SETEXT = re.compile(r"^[ \t>]*(=+|-+)[ \t]*$")
MD_KEPT = re.compile(r"^```.*?^```$|`[^`\n]+`|\]\([^)]*\)|<https?://[^>]*>", re.S | re.M)
MD_DEFINITION = re.compile(r"\s*\[[^\]]+\]:\s")
MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*")


def md_units(text):
    """The blocks of a Markdown text outside code blocks, a paragraph's soft-wrapped lines joined:
    dicts of marker (the first line's prefix and block marker), content, and lines (each line's prefix
    before its content); table rows have marker "|" and their cells as content."""
    units, fence, previous_blank = [], False, True
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
            previous_blank = False
            continue
        if fence:
            continue
        prefix, marker, content = MD_LINE.match(line).groups()
        if not content.strip() and not marker:
            previous_blank = True
            continue
        html = bool(re.match(r"</?[A-Za-z]", content))  # an HTML block's tag line starts a unit
        paragraph = units and units[-1]["marker"] != "|" and not units[-1]["marker"].strip().startswith("#") \
            and not html
        if line.startswith("|"):
            units.append({"marker": "|", "content": [c.strip() for c in line.strip().strip("|").split("|")],
                          "lines": [""], "html": False})
        elif MD_SETEXT.match(line) and not previous_blank and paragraph:
            units.append({"marker": "=", "content": "", "lines": [""], "html": False})
        elif not marker and not previous_blank and paragraph and units[-1]["marker"] != "=":
            units[-1]["content"] += " " + content
            units[-1]["lines"].append(prefix)
        else:
            units.append({"marker": prefix + marker, "content": content, "lines": [prefix + marker], "html": html})
        previous_blank = False
    return units


# What the model never reads: a link around an image, code, a URL or an e-mail address (kept whole), a
# shortcut or collapsed reference and a full reference's label (the label stays the label), a task marker,
# a GitHub alert's marker, a heading's closing sequence.
MD_UNREAD = re.compile(r"\[(?:!\[[^\]]*\]\([^)]*\)|`[^`]*`|(?:https?://|mailto:)?[^\]\s]*[/@][^\]\s]*)\]\([^)]*\)"
                       r"|!?\[[^\]]*\]\[\]|!?\[[^\]]*\](?![\[(:])|\s#+\s*$")


def md_plain(text):
    """The words of a Markdown unit without its markup, escapes and link destinations."""
    text = MD_UNREAD.sub("", text).replace("~~", "")
    text = re.sub(r"\]\([^)]*\)", "", text)
    text = re.sub(r"\\(?=\s|$)", " ", text)  # a hard line break
    text = MD_ESCAPE.sub(lambda m: "\0" if m.group(1) in "*_[]!" else m.group(1), text)
    text = re.sub(r"<[^>]*>", "", text)
    return words(re.sub(r"[*_\[\]!]", "", text).replace("\0", ""))


def md_elements(tool, text):
    """The multiset of elements md4c reads in a Markdown text, with the tags of its HTML."""
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".md", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        found = subprocess.run([tool, f.name], capture_output=True, text=True, check=True).stdout.split()
    return collections.Counter(found) + collections.Counter(HTML_TAG.findall(MD_KEPT.sub("", text)))


def check_markdown(nmt, model, fixture, source, output, stderr):
    if source.startswith("---\n"):
        front = source[:source.index("\n---\n", 4) + 5]
        if not output.startswith(front):
            fail(fixture, "front matter changed")
        source, output = source[len(front):], output[len(front):]
    if md_elements_tool:
        rendered = [md_elements(md_elements_tool, t) for t in (source, output)]
        if rendered[0] != rendered[1]:
            fail(fixture, f"rendered elements differ: {rendered[0] - rendered[1]} vs {rendered[1] - rendered[0]}")
    for pattern in (MD_KEPT, KEPT, NO_TRANSLATE):
        for match in set(m.group(0) for m in pattern.finditer(source)):
            if output.count(match) != source.count(match):
                fail(fixture, f"{match[:40]!r} is in the output {output.count(match)} times, not {source.count(match)}")
    source, output = (NO_TRANSLATE.sub("<kept/>", KEPT.sub("<kept/>", t)) for t in (source, output))
    emphasis = [collections.Counter(re.findall(r"\*+|~~", MD_ESCAPE.sub("", MD_KEPT.sub("", t))))
                for t in (source, output)]
    if emphasis[0] != emphasis[1]:
        fail(fixture, f"emphasis delimiters differ: {emphasis[0]} vs {emphasis[1]}")
    before, after = md_units(source), md_units(output)
    if [u["marker"] for u in before] != [u["marker"] for u in after]:
        fail(fixture, f"markers differ: {[u['marker'] for u in before]} vs {[u['marker'] for u in after]}")
        return
    pairs = []
    for a, b in zip(before, after):
        if a["marker"] == "|":
            if len(a["content"]) != len(b["content"]):
                fail(fixture, f"table row {a['content']} has {len(b['content'])} cells out")
            elif not set("".join(a["content"])) <= set("|-: "):
                pairs += list(zip(a["content"], b["content"]))
            continue
        # Line structure: a one-line block stays one line, a wrapped one stays wrapped with its line count
        # within 50% and every continuation line starts with the source's continuation prefix.
        n_in, n_out = len(a["lines"]), len(b["lines"])
        # (HTML reads line breaks as spaces: an HTML block's text is written on one line.)
        # (A label line, `**Note**`, renders joined to the next: its paragraph may come back on one line.)
        label = re.match(r"\*\*\w+:?\*\* ", a["content"]) and n_in == 2
        if not a["html"] and not label and ((n_in == 1) != (n_out == 1) or abs(n_out - n_in) > n_in / 2):
            fail(fixture, f"{a['content'][:40]!r}: {n_in} lines in, {n_out} out")
        if n_in > 1 and not a["html"] and any(p != a["lines"][1] for p in b["lines"][1:]):
            fail(fixture, f"{a['content'][:40]!r}: continuation prefixes {b['lines'][1:]}, not {a['lines'][1]!r}")
        if LETTER.search(md_plain(a["content"])):
            pairs.append((a["content"], b["content"]))
    pairs = [(a, b) for a, b in pairs if not re.search(r"`|<https?:", a) and not PROTECTED.search(a)
             and not MD_DEFINITION.match(a)]
    plain = translate_lines(nmt, model, [md_plain(a) for a, _ in pairs])
    for (a, b), expected in zip(pairs, plain):
        if md_plain(b) != words(expected):
            fail(fixture, f"{a!r}: {md_plain(b)!r}, plain translation {expected!r}")


def fixture_output(fixture):
    import tempfile
    return os.path.join(tempfile.mkdtemp(prefix="nmt-documents-"), os.path.basename(fixture))


md_elements_tool = None


def main():
    global md_elements_tool
    args = sys.argv[1:]
    if args[0] == "--md-elements":
        md_elements_tool, args = args[1], args[2:]
    nmt, model, fixtures = args[0], args[1], args[2:]
    for fixture in fixtures:
        if fixture.endswith((".docx", ".odt")):
            output_path = fixture_output(fixture)
            run = subprocess.run([nmt, "translate", *model_args(model), "-b", "1", "-i", fixture, "-o", output_path],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                fail(fixture, f"exit {run.returncode}: {run.stderr}")
            else:
                import documents_packages
                documents_packages.dc = sys.modules[__name__]
                check = documents_packages.check_docx if fixture.endswith(".docx") else documents_packages.check_odt
                check(nmt, model, fixture, output_path, run.stderr)
                print(f"{fixture}: checked")
            continue
        source = open(fixture, encoding="utf-8").read()
        run = subprocess.run([nmt, "translate", *model_args(model), "-b", "1", "-i", fixture], capture_output=True,
                             text=True)
        if run.returncode != 0:
            fail(fixture, f"exit {run.returncode}: {run.stderr}")
            continue
        sys.stderr.write(run.stderr)
        check = check_subtitles if fixture.endswith((".srt", ".vtt")) else \
            check_markdown if fixture.endswith(".md") else check_html
        check(nmt, model, fixture, source, run.stdout, run.stderr)
        print(f"{fixture}: checked")
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
