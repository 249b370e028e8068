#!/usr/bin/env python3
"""Round-trip properties of `nmt translate` on XML and EPUB fixtures (docs/formats.md), as documents_check.py
checks the other formats.

XML: the output parses with a strict parser (expat); it has the same multiset of elements with their
attributes (names and values); comments, processing instructions, CDATA sections, the doctype, entity
references other than the five predefined ones and translate="no"/its:translate="no" elements byte-identical,
each as often as in the input; every number's digits kept (or a warning naming it); an element with text of
its own reads as `nmt translate` of its text (inline markup, kept elements and the DTD's entities aside);
under xml:space="preserve" the same line breaks. EPUB: the same members in the same order, mimetype first
and stored, every member but the OPF, toc.ncx and the XHTML documents byte-identical; XHTML documents pass
documents_check.py's HTML checks and parse as XML; toc.ncx passes the XML checks; the OPF differs from the
input only in dc:title and dc:description. Where FIXTURE.expected exists, the output equals it (a package's
members each).

Usage: documents_xml_check.py NMT_BINARY MODEL_DIR FIXTURE...
"""
import collections
import os
import re
import subprocess
import sys
import tempfile
import xml.dom.minidom
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import documents_check as dc  # noqa: E402

KEPT = [re.compile(p, re.S) for p in (r"<!--.*?-->", r"<\?.*?\?>", r"<!\[CDATA\[.*?\]\]>",
                                      r"<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>",
                                      r"&(?!(?:amp|lt|gt|quot|apos);)[A-Za-z_][\w.-]*;",
                                      r"<([\w:.-]+)\b[^>]*\b(?:its:)?translate=\"no\"[^>]*(?:/>|>.*?</\1>)")]
DTD_ENTITY = re.compile(r"&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)[A-Za-z_][\w.-]*;")


def parse(fixture, text, what):
    try:
        return xml.dom.minidom.parseString(text.encode("utf-8"))
    except Exception as e:  # expat's ExpatError and friends
        dc.fail(fixture, f"{what} is not well-formed XML: {e}")
        return None


def translate_no(node):
    return node.getAttribute("translate") == "no" or node.getAttribute("its:translate") == "no"


def elements(doc):
    out = collections.Counter()
    for e in doc.getElementsByTagName("*"):
        out[(e.tagName, tuple(sorted(e.attributes.items())))] += 1
    return out


def text_of(node):
    """The words the model reads of an element: its text, kept elements, comments and CDATA aside."""
    parts = []
    for child in node.childNodes:
        if child.nodeType == child.TEXT_NODE:
            parts.append(child.data)
        elif child.nodeType == child.ELEMENT_NODE and not translate_no(child):
            parts.append(text_of(child) if child.childNodes else " ")
    return "".join(parts)


def blocks(node, preserve=False, only=None):
    """(element, preserved) for every element with text of its own, in document order, outside kept ones."""
    out = []
    for child in node.childNodes:
        if child.nodeType != child.ELEMENT_NODE or translate_no(child):
            continue
        space = child.getAttribute("xml:space")
        keep = space == "preserve" or (preserve and space != "default")
        own = any(c.nodeType == c.TEXT_NODE and c.data.strip() for c in child.childNodes)
        if own and (only is None or child.tagName in only):
            out.append((child, keep))
        else:
            out.extend(blocks(child, keep, only))
    return out


def check_xml(nmt, model, fixture, source, output, stderr, only=None):
    after = parse(fixture, output, "the output")
    if after is None:
        return
    # The model never reads the DTD's own entities: they are taken out for the text comparison.
    before_doc = xml.dom.minidom.parseString(DTD_ENTITY.sub("", source).encode("utf-8"))
    after_doc = xml.dom.minidom.parseString(DTD_ENTITY.sub("", output).encode("utf-8"))
    if elements(before_doc) != elements(after):
        dc.fail(fixture, f"elements differ: {elements(before_doc) - elements(after)} vs "
                         f"{elements(after) - elements(before_doc)}")
    for pattern in KEPT:
        for match in set(m.group(0) for m in pattern.finditer(source)):
            if output.count(match) != source.count(match):
                dc.fail(fixture, f"{match[:40]!r} is in the output {output.count(match)} times, "
                                 f"not {source.count(match)}")
    for number in set(re.findall(r"\d+", re.sub(r"<[^>]*>", "", source))):
        if number not in output and f"lacks the number {number}" not in stderr:
            dc.fail(fixture, f"the number {number} is missing, without a warning")
    before_blocks, after_blocks = blocks(before_doc, only=only), blocks(after_doc, only=only)
    if len(before_blocks) != len(after_blocks):
        dc.fail(fixture, f"{len(before_blocks)} text elements in, {len(after_blocks)} out")
        return
    plain_blocks = [(b, a) for (b, keep), (a, _) in zip(before_blocks, after_blocks) if not keep]
    for (b, keep), (a, _) in zip(before_blocks, after_blocks):
        if keep and text_of(b).count("\n") != text_of(a).count("\n"):
            dc.fail(fixture, f"<{b.tagName} xml:space=\"preserve\"> lost its line breaks")
    texts = [dc.words(text_of(b)) for b, _ in plain_blocks]
    plain = dc.translate_lines(nmt, model, texts)
    for (b, a), expected, src in zip(plain_blocks, plain, texts):
        if dc.PROTECTED.search(src):
            continue  # the model reads the text without its protected spans
        if dc.words(text_of(a)) != dc.words(expected):
            dc.fail(fixture, f"<{b.tagName}> {src!r}: {dc.words(text_of(a))!r}, plain translation {expected!r}")


def check_epub(nmt, model, fixture, output_path, stderr):
    before, after = zipfile.ZipFile(fixture), zipfile.ZipFile(output_path)
    if [i.filename for i in before.infolist()] != [i.filename for i in after.infolist()]:
        dc.fail(fixture, "the members or their order differ")
        return
    first = after.infolist()[0]
    if first.filename != "mimetype" or first.compress_type != zipfile.ZIP_STORED:
        dc.fail(fixture, "mimetype is not the first member, stored")
    container = xml.dom.minidom.parseString(before.read("META-INF/container.xml"))
    opf = container.getElementsByTagName("rootfile")[0].getAttribute("full-path")
    folder = os.path.dirname(opf) + "/" if "/" in opf else ""
    kinds = {opf: "opf"}
    for item in xml.dom.minidom.parseString(before.read(opf)).getElementsByTagName("item"):
        member = folder + re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), item.getAttribute("href"))
        kinds[member] = {"application/xhtml+xml": "xhtml", "application/x-dtbncx+xml": "ncx"}.get(
            item.getAttribute("media-type"), "other")
    for info in before.infolist():
        name, kind = info.filename, kinds.get(info.filename, "other")
        label = f"{fixture}:{name}"
        if kind == "other":
            if before.read(name) != after.read(name):
                dc.fail(label, "changed, though it is not translated")
            continue
        src, out = before.read(name).decode("utf-8"), after.read(name).decode("utf-8")
        if kind == "xhtml":
            if parse(label, out, "the output") is not None:
                dc.check_html(nmt, model, label, src, out, stderr)
        elif kind == "ncx":
            check_xml(nmt, model, label, src, out, stderr)
        else:
            only = ("dc:title", "dc:description")
            check_xml(nmt, model, label, src, out, stderr, only=only)
            kept = [e for e in xml.dom.minidom.parseString(src).getElementsByTagName("*") if e.tagName not in only]
            got = [e for e in xml.dom.minidom.parseString(out).getElementsByTagName("*") if e.tagName not in only]
            def own(e):
                return "".join(c.data for c in e.childNodes if c.nodeType == c.TEXT_NODE)
            if [own(e) for e in kept] != [own(e) for e in got]:
                dc.fail(label, "text outside dc:title and dc:description changed")


def check_expected(fixture, output_path):
    """The output equals the hand-checked FIXTURE.expected: byte for byte, or member by member for a package
    (whose rewritten members carry the time they were written)."""
    expected = fixture + ".expected"
    if not os.path.exists(expected):
        return
    if not fixture.endswith(".epub"):
        if open(expected, "rb").read() != open(output_path, "rb").read():
            dc.fail(fixture, f"differs from {os.path.basename(expected)}")
        return
    want, got = zipfile.ZipFile(expected), zipfile.ZipFile(output_path)
    if want.namelist() != got.namelist():
        dc.fail(fixture, f"members differ from {os.path.basename(expected)}")
        return
    for name in want.namelist():
        if want.read(name) != got.read(name):
            dc.fail(f"{fixture}:{name}", f"differs from {os.path.basename(expected)}")


def main():
    nmt, model, fixtures = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory(prefix="nmt-documents-") as tmp:
        for fixture in fixtures:
            check_fixture(nmt, model, fixture, os.path.join(tmp, os.path.basename(fixture)))
    for f in dc.failures:
        print("FAIL " + f)
    sys.exit(1 if dc.failures else 0)


def check_fixture(nmt, model, fixture, output_path):
    run = subprocess.run([nmt, "translate", "-m", model, "-b", "1", "-i", fixture, "-o", output_path],
                         capture_output=True, text=True)
    if run.returncode != 0:
        dc.fail(fixture, f"exit {run.returncode}: {run.stderr}")
        return
    sys.stderr.write(run.stderr)
    if fixture.endswith(".epub"):
        check_epub(nmt, model, fixture, output_path, run.stderr)
    else:
        source = open(fixture, encoding="utf-8").read()
        check_xml(nmt, model, fixture, source, open(output_path, encoding="utf-8").read(), run.stderr)
    check_expected(fixture, output_path)
    print(f"{fixture}: checked")


if __name__ == "__main__":
    main()
