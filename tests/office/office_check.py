#!/usr/bin/env python3
"""PPTX and the DOCX parts python-docx does not read (text boxes, comments), on the fixtures
make_fixtures.py writes, read back with zipfile and ElementTree.

PPTX: every member present in the same order, the untranslated ones byte-identical; the same paragraphs
(a:p) in slides and notes, each `nmt translate` of its text (URLs and fields aside, which are kept); the
same bold, italic and linked runs; one a:t per run, none starting with a space after a line break;
a:endParaRPr last; numbers kept or named in a warning.
DOCX: the same paragraphs in the body, the text box and the comments, each translated as its plain text;
the text box still inside its drawing, the comment reference kept, the bold and italic runs kept.

Usage: office_check.py NMT_BINARY MODEL_DIR
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures  # noqa: E402

A = "{%s}" % make_fixtures.A
W = "{%s}" % make_fixtures.W
URL = re.compile(r"https?://[^\s<>\"]+")
failures = []


def fail(fixture, text):
    failures.append(f"{fixture}: {text}")


def words(text):
    return " ".join(text.split())


def translate_lines(nmt, model, lines):
    out = subprocess.run([nmt, "translate", "-q", "-m", model, "-b", "1"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    return out.split("\n")[:len(lines)]


def translate_file(nmt, model, source, target):
    run = subprocess.run([nmt, "translate", "-m", model, "-b", "1", "-i", source, "-o", target],
                         capture_output=True, text=True)
    if run.returncode != 0:
        fail(source, f"exit {run.returncode}: {run.stderr}")
        return None
    return run.stderr


def same_members(fixture, before, after, translated):
    if before.namelist() != after.namelist():
        fail(fixture, f"members differ: {before.namelist()} vs {after.namelist()}")
    for name in before.namelist():
        if name not in translated and name in after.namelist() and before.read(name) != after.read(name):
            fail(fixture, f"{name} changed though it holds no text")


def check_texts(nmt, model, fixture, sources, outputs, stderr):
    """Each output paragraph is the plain translation of its source, its URLs kept."""
    if len(sources) != len(outputs):
        fail(fixture, f"{len(sources)} paragraphs in, {len(outputs)} out")
        return
    plain = translate_lines(nmt, model, [words(t) for t in sources])
    for src, got, expected in zip(sources, outputs, plain):
        for span in URL.findall(src):
            if got.count(span) != src.count(span):
                fail(fixture, f"{span!r} not kept in {got!r}")
        if not URL.search(src) and words(got) != words(expected):
            fail(fixture, f"{src!r}: {got!r}, plain translation {expected!r}")
        for number in re.findall(r"\d+", src):
            if number not in got and f"lacks the number {number}" not in stderr:
                fail(fixture, f"{number} dropped from {got!r} without a warning")


def slide_paragraphs(root):
    """(text of the runs, a:br as a space; counts of bold, italic, linked runs, fields) of each a:p."""
    found, counts = [], [0, 0, 0, 0]
    for p in root.iter(A + "p"):
        text, previous = "", None
        for child in p:
            if child.tag == A + "r":
                t = child.findall(A + "t")
                if len(t) != 1:
                    fail("slides.pptx", f"a run with {len(t)} a:t")
                run_text = "".join(x.text or "" for x in t)
                if previous == A + "br" and run_text.startswith(" "):
                    fail("slides.pptx", f"a space after a line break: {run_text!r}")
                text += run_text
                props = child.find(A + "rPr")
                if props is not None and run_text.strip():
                    counts[0] += props.get("b") == "1"
                    counts[1] += props.get("i") == "1"
                    counts[2] += props.find(A + "hlinkClick") is not None
            elif child.tag == A + "br":
                text += " "
            elif child.tag == A + "fld":
                counts[3] += 1
            previous = child.tag
        if len(p) and p[-1].tag != A + "endParaRPr" and p.find(A + "endParaRPr") is not None:
            fail("slides.pptx", "a:endParaRPr is not the paragraph's last child")
        if text.strip():
            found.append(text)
    return found, counts


def check_package(nmt, model, fixture, output, translated, read_paragraphs, check_kept=None):
    """Translates the package and compares each translated member's paragraphs and run formatting."""
    stderr = translate_file(nmt, model, fixture, output)
    if stderr is None:
        return
    before, after = zipfile.ZipFile(fixture), zipfile.ZipFile(output)
    same_members(fixture, before, after, translated)
    for member in translated:
        source, out = ET.fromstring(before.read(member)), ET.fromstring(after.read(member))
        a, a_counts = read_paragraphs(source)
        b, b_counts = read_paragraphs(out)
        if a_counts != b_counts:
            fail(fixture, f"{member}: formatted runs and fields {a_counts} in, {b_counts} out")
        if check_kept:
            check_kept(fixture, member, source, out)
        check_texts(nmt, model, f"{fixture}:{member}", a, b, stderr)


def word_paragraphs(root):
    """The text of each w:p's own runs (not those of a text box inside it), and its bold and italic runs."""
    found, counts = [], [0, 0]
    for p in root.iter(W + "p"):
        text = ""
        for r in p.findall(W + "r") + p.findall(W + "hyperlink/" + W + "r"):
            run_text = "".join(t.text or "" for t in r.findall(W + "t"))
            text += run_text
            if run_text.strip():
                counts[0] += r.find(W + "rPr/" + W + "b") is not None
                counts[1] += r.find(W + "rPr/" + W + "i") is not None
        if text.strip():
            found.append(text)
    return found, counts


def check_word_marks(fixture, member, source, out):
    """Text boxes inside their drawings, comment marks where they were."""
    for tag in ("txbxContent", "drawing", "commentReference", "commentRangeStart", "commentRangeEnd"):
        if len(list(source.iter(W + tag))) != len(list(out.iter(W + tag))):
            fail(fixture, f"{member}: w:{tag} not kept")
    for box in out.iter(W + "txbxContent"):
        if not "".join(t.text or "" for t in box.iter(W + "t")).strip():
            fail(fixture, "the text box lost its text")


def main():
    nmt, model = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="nmt-office-")
    make_fixtures.slides_pptx(os.path.join(work, "slides.pptx"))
    make_fixtures.boxes_docx(os.path.join(work, "boxes.docx"))
    check_package(nmt, model, os.path.join(work, "slides.pptx"), os.path.join(work, "out.pptx"),
                  ["ppt/slides/slide1.xml", "ppt/notesSlides/notesSlide1.xml"], slide_paragraphs)
    check_package(nmt, model, os.path.join(work, "boxes.docx"), os.path.join(work, "out.docx"),
                  ["word/document.xml", "word/comments.xml"], word_paragraphs, check_word_marks)
    for f in failures:
        print("FAIL " + f)
    if not failures:
        print("slides.pptx, boxes.docx: checked")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
