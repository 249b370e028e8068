#!/usr/bin/env python3
"""The real-world fixtures (tests/fixtures/documents/real-world/, and the packages tests/office/make_real_world.py
writes) through `nmt translate`, each checked with the invariants of documents_check.py and
documents_xml_check.py, and with what real documents need on top: every link keeps its target and has text,
a link or block without letters (a footnote number, a back-link arrow, a version and a date) comes back
byte-identical, Markdown reference labels and definitions kept, tables the same shape as cmark-gfm reads
them (`cmark-gfm -e table`; not checked, with a line saying so, where it is not installed), DOCX notes and
an HTML page's `<meta name="description">` translated, an ODT's DTD entities kept (its content.xml checked
as XML), a UTF-16 or Latin-1 file read with a warning (its output is UTF-8, a page's charset declared so).

The reference translations of all fixtures are one `nmt translate` call: the checks run once to collect the
lines they compare with, the lines are translated together, and the checks run again on the answers.

Usage: documents_real_world_check.py --md-elements MD_ELEMENTS NMT_BINARY MODEL_DIR FIXTURE_DIR
"""
import collections
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import documents_check as dc  # noqa: E402
import documents_packages  # noqa: E402
import documents_xml_check as dx  # noqa: E402

LETTER = re.compile(r"[^\W\d_]")
reference = {"recording": True, "lines": set(), "answers": {}}


def translate_lines(nmt, model, lines):
    """Records the lines on the first pass; answers from the one batched translation on the second."""
    if reference["recording"]:
        reference["lines"].update(line for line in lines if line)
        return list(lines)
    return [reference["answers"].get(line, "") for line in lines]


dc.translate_lines = translate_lines
documents_packages.dc = dc


class Links(html.parser.HTMLParser):
    """Each <a href>'s target and text, in document order; an image inside counts as its text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.open = [], []

    def handle_starttag(self, tag, attrs):
        if tag == "a" and dict(attrs).get("href") is not None:
            self.links.append([dict(attrs)["href"], ""])
            self.open.append(len(self.links) - 1)
        elif tag == "a":
            self.open.append(None)
        elif tag == "img" and self.open and self.open[-1] is not None:
            self.links[self.open[-1]][1] += "<img>"

    def handle_endtag(self, tag):
        if tag == "a" and self.open:
            self.open.pop()

    def handle_data(self, data):
        for i in self.open:
            if i is not None:
                self.links[i][1] += data


def html_links(text):
    parser = Links()
    parser.feed(text)
    parser.close()
    return parser.links


def check_links(fixture, source, output):
    before, after = html_links(source), html_links(output)
    if [href for href, _ in before] != [href for href, _ in after]:
        dc.fail(fixture, f"link targets differ: {[h for h, _ in before]} vs {[h for h, _ in after]}")
        return
    for (href, text_in), (_, text_out) in zip(before, after):
        if text_in.strip() and not text_out.strip():
            dc.fail(fixture, f"the link to {href} lost its text {text_in.strip()!r}")
        elif text_in.strip() and not LETTER.search(text_in) and text_in.strip() != text_out.strip():
            dc.fail(fixture, f"the link to {href}: {text_in.strip()!r} came back as {text_out.strip()!r}")


META_DESCRIPTION = re.compile(r"<meta name=\"description\" content=\"([^\"]*)\"")
MD_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]*)[^)]*\)")
MD_REFERENCE_USE = re.compile(r"\]\[([^\]]*)\]")
MD_DEFINITION_LINE = re.compile(r"^ {0,3}\[[^\]]+\]:.*$", re.M)


def table_shapes(text):
    """Each table cmark-gfm reads: its rows' cell counts."""
    rendered = subprocess.run([cmark_gfm, "-e", "table"], input=text, capture_output=True, text=True,
                              check=True).stdout
    return [[row.count("<t" + "d") + row.count("<th") for row in re.findall(r"<tr>.*?</tr>", table, re.S)]
            for table in re.findall(r"<table>.*?</table>", rendered, re.S)]


def check_markdown_links(fixture, source, output):
    before, after = MD_LINK.findall(source), MD_LINK.findall(output)
    if collections.Counter(d for _, d in before) != collections.Counter(d for _, d in after):
        dc.fail(fixture, f"link destinations differ: {[d for _, d in before]} vs {[d for _, d in after]}")
    for text, destination in after:
        if not text.strip():
            dc.fail(fixture, f"the link to {destination} has no text")
    for pattern in (MD_REFERENCE_USE, MD_DEFINITION_LINE):
        if collections.Counter(pattern.findall(source)) != collections.Counter(pattern.findall(output)):
            dc.fail(fixture, f"reference labels or definitions differ: {pattern.findall(output)}")
    for a, b in zip(dc.md_units(source), dc.md_units(output)):
        content = a["content"] if isinstance(a["content"], str) else " ".join(a["content"])
        if content.strip() and not LETTER.search(MD_LINK.sub(r"\1", content)) and a != b:
            dc.fail(fixture, f"{content!r} has no words, yet came back as {b['content']!r}")
    if cmark_gfm and table_shapes(source) != table_shapes(output):
        dc.fail(fixture, f"tables differ from cmark-gfm's: {table_shapes(source)} vs {table_shapes(output)}")


def check_docx_notes(fixture, output_path):
    """Footnotes' and endnotes' paragraphs (which python-docx does not read) come back translated."""
    for member in ("word/footnotes.xml", "word/endnotes.xml"):
        if member not in zipfile.ZipFile(fixture).namelist():
            continue
        texts = [re.findall(r"<w:p\b.*?</w:p>", zipfile.ZipFile(path).read(member).decode(), re.S)
                 for path in (fixture, output_path)]
        for a, b in zip(*texts):
            words = ["".join(re.findall(r"<w:t\b[^>]*>([^<]*)</w:t>", p)).strip() for p in (a, b)]
            if LETTER.search(words[0]) and words[0] == words[1]:
                dc.fail(fixture, f"{member}: {words[0]!r} left untranslated")


def read_text(path):
    """A fixture's text, and whether it is in a legacy encoding (UTF-16 by its BOM, else Windows-1252)."""
    data = open(path, "rb").read()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16"), True
    try:
        return data.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        return data.decode("cp1252"), True


def check(nmt, model, fixture, run):
    if run.returncode != 0:
        dc.fail(fixture, f"exit {run.returncode}: {run.stderr}")
        return
    if fixture.endswith(".docx"):
        check_docx_notes(fixture, run.output_path)
        return documents_packages.check_docx(nmt, model, fixture, run.output_path, run.stderr)
    if fixture.endswith(".odt") and b"<!ENTITY" in zipfile.ZipFile(fixture).read("content.xml"):
        members = [zipfile.ZipFile(path).read("content.xml").decode() for path in (fixture, run.output_path)]
        return dx.check_xml(nmt, model, fixture, members[0], members[1], run.stderr)  # DTD entities kept
    if fixture.endswith((".odt", ".odp")):
        return documents_packages.check_odt(nmt, model, fixture, run.output_path, run.stderr)
    if fixture.endswith(".pptx"):
        return documents_packages.check_pptx(nmt, model, fixture, run.output_path, run.stderr)
    if fixture.endswith(".epub"):
        return dx.check_epub(nmt, model, fixture, run.output_path, run.stderr)
    source, legacy = read_text(fixture)
    output = open(run.output_path, encoding="utf-8-sig").read()
    if legacy and "not UTF-8: read as" not in run.stderr:
        dc.fail(fixture, "in a legacy encoding, read without the warning that says so")
    if legacy and fixture.endswith(".html"):
        source = source.replace("charset=\"iso-8859-1\"", "charset=\"utf-8\"")  # the output declares UTF-8
    if fixture.endswith(".xml"):
        dx.check_xml(nmt, model, fixture, source, output, run.stderr)
    elif fixture.endswith((".srt", ".vtt")):
        dc.check_subtitles(nmt, model, fixture, source, output, run.stderr)
    elif fixture.endswith(".md"):
        dc.check_markdown(nmt, model, fixture, source, output, run.stderr)
        check_markdown_links(fixture, source, output)
    else:
        dc.check_html(nmt, model, fixture, source, output, run.stderr)
        check_links(fixture, source, output)
        for a, b in zip(META_DESCRIPTION.findall(source), META_DESCRIPTION.findall(output)):
            if a == b:
                dc.fail(fixture, f"the page's description {a!r} is not translated")


cmark_gfm = shutil.which("cmark-gfm")


def main():
    args = sys.argv[1:]
    if args[0] == "--md-elements":
        dc.md_elements_tool, args = args[1], args[2:]
    nmt, model, directory = args
    if not cmark_gfm:
        print("table shapes not checked: cmark-gfm is not installed (apt-get install cmark-gfm)")
    with tempfile.TemporaryDirectory(prefix="nmt-real-world-") as tmp:
        subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "office",
                                                     "make_real_world.py"), tmp], check=True)
        fixtures = sorted(os.path.join(directory, f) for f in os.listdir(directory)) + \
            sorted(os.path.join(tmp, f) for f in os.listdir(tmp))
        runs = {}
        for fixture in fixtures:
            output_path = os.path.join(tmp, "out." + os.path.basename(fixture))
            run = subprocess.run([nmt, "translate", "-m", model, "-b", "1", "-i", fixture, "-o", output_path],
                                 capture_output=True, text=True)
            run.output_path = output_path
            runs[fixture] = run
        for fixture in fixtures:
            check(nmt, model, fixture, runs[fixture])
        dc.failures.clear()
        lines = sorted(reference["lines"])
        answers = subprocess.run([nmt, "translate", "-q", "-m", model, "-b", "1"], input="\n".join(lines) + "\n",
                                 capture_output=True, text=True, check=True).stdout.split("\n")
        reference.update(recording=False, answers=dict(zip(lines, answers)))
        for fixture in fixtures:
            sys.stderr.write(runs[fixture].stderr)
            check(nmt, model, fixture, runs[fixture])
    for f in dc.failures:
        print("FAIL " + f)
    print(f"{len(fixtures)} real-world fixtures, {len(dc.failures)} failures")
    sys.exit(1 if dc.failures else 0)


if __name__ == "__main__":
    main()
