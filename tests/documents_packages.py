#!/usr/bin/env python3
"""documents_check.py's checks of the zip packages read back with their python libraries: DOCX with
python-docx, ODT with odfpy (docs/formats.md)."""

dc = None  # the documents_check module whose failures these checks add to, set by the importer


def check_docx(nmt, model, fixture, output_path, stderr):
    """Paragraphs, table cells and headers read back with python-docx: the same count, each translated as
    `nmt translate` of its text, bold and italic runs kept, URLs byte-identical, members all present."""
    import docx
    import zipfile
    before, after = docx.Document(fixture), docx.Document(output_path)

    def paragraphs(d):
        found = list(d.paragraphs)
        for table in d.tables:
            for row in table.rows:
                for cell in row.cells:
                    found += cell.paragraphs
        for section in d.sections:
            found += section.header.paragraphs
        return found

    a, b = paragraphs(before), paragraphs(after)
    if len(a) != len(b):
        dc.fail(fixture, f"{len(a)} paragraphs in, {len(b)} out")
        return
    if sorted(zipfile.ZipFile(fixture).namelist()) != sorted(zipfile.ZipFile(output_path).namelist()):
        dc.fail(fixture, "the package's members differ")
    for kind in ("bold", "italic"):
        count = [sum(1 for p in d for r in p.runs if getattr(r, kind) and r.text.strip()) for d in (a, b)]
        if count[0] != count[1]:
            dc.fail(fixture, f"{count[0]} {kind} runs in, {count[1]} out")
    def text(p):  # python-docx's p.text leaves hyperlinks out
        w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
        return "".join(n.text or "" if n.tag == w + "t" else " " for n in p._p.iter(w + "t", w + "tab", w + "br")
                       if not any(a.tag == w + "fldSimple" for a in n.iterancestors()))  # a field's value is kept

    texts = [text(p) for p in a if text(p).strip()]
    plain = dc.translate_lines(nmt, model, [dc.words(t) for t in texts])
    outs = [text(p) for p in b if text(p).strip()]
    for src, got, expected in zip(texts, outs, plain):
        for span in dc.PROTECTED.findall(src):
            if got.count(span) != src.count(span):
                dc.fail(fixture, f"{span!r} not kept in {got!r}")
        if not dc.PROTECTED.search(src) and dc.words(got) != dc.words(expected):
            dc.fail(fixture, f"{src!r}: {got!r}, plain translation {expected!r}")


def check_odt(nmt, model, fixture, output_path, stderr):
    """Paragraphs and headings read back with odfpy: the same count, each translated as `nmt translate` of
    its text, the same spans (by style) and links (by href), the mimetype member first and stored."""
    import zipfile
    from odf import opendocument, text
    before, after = opendocument.load(fixture), opendocument.load(output_path)

    def blocks(d):
        return d.getElementsByType(text.H) + d.getElementsByType(text.P)

    def inline(d, kind, attribute):
        return sorted(e.getAttribute(attribute) or "" for e in d.getElementsByType(kind))

    a, b = blocks(before), blocks(after)
    if len(a) != len(b):
        dc.fail(fixture, f"{len(a)} paragraphs in, {len(b)} out")
        return
    if inline(before, text.Span, "stylename") != inline(after, text.Span, "stylename"):
        dc.fail(fixture, "spans differ")
    if inline(before, text.A, "href") != inline(after, text.A, "href"):
        dc.fail(fixture, "links differ")
    package = zipfile.ZipFile(output_path)
    first = package.infolist()[0]
    if first.filename != "mimetype" or first.compress_type != zipfile.ZIP_STORED:
        dc.fail(fixture, "mimetype is not the first member, stored")
    def own_text(node):  # a paragraph's words, its footnotes' (paragraphs of their own) aside
        if node.nodeType == node.TEXT_NODE:
            return node.data
        if node.qname[1] in ("note", "s", "tab", "line-break"):
            return " "
        return "".join(own_text(child) for child in node.childNodes)

    texts = [own_text(p) for p in a]
    plain = dc.translate_lines(nmt, model, [dc.words(t) for t in texts])
    for src, out, expected in zip(texts, [own_text(p) for p in b], plain):
        if not dc.PROTECTED.search(src) and dc.words(out) != dc.words(expected):
            dc.fail(fixture, f"{src!r}: {out!r}, plain translation {expected!r}")


def check_pptx(nmt, model, fixture, output_path, stderr):
    """Slides and notes read back with ElementTree: the same members, the untranslated ones byte-identical;
    in each slide and notes page the same groups, table cells, linked runs and fields, the same paragraphs
    (a:p), each translated as `nmt translate` of its text (fields and URLs aside, which are kept)."""
    import re
    import zipfile
    import xml.etree.ElementTree as ET
    a_ns = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
    p_ns = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
    before, after = zipfile.ZipFile(fixture), zipfile.ZipFile(output_path)
    if before.namelist() != after.namelist():
        dc.fail(fixture, "the package's members differ")
        return
    translated = [n for n in before.namelist() if re.match(r"ppt/(slides/slide|notesSlides/notesSlide)\d+\.xml$", n)]
    for name in before.namelist():
        if name not in translated and before.read(name) != after.read(name):
            dc.fail(fixture, f"{name} changed though it is not translated")

    def shape_of(root):
        return [len(list(root.iter(p_ns + "grpSp"))), len(list(root.iter(a_ns + "tc"))),
                len(list(root.iter(a_ns + "hlinkClick"))), [f.findtext(a_ns + "t") for f in root.iter(a_ns + "fld")]]

    def paragraphs(root):
        return ["".join(t.text or "" for r in p.iter(a_ns + "r") for t in r.iter(a_ns + "t")) for p in root.iter(a_ns + "p")]

    for member in translated:
        source, out = ET.fromstring(before.read(member)), ET.fromstring(after.read(member))
        if shape_of(source) != shape_of(out):
            dc.fail(fixture, f"{member}: groups, cells, links, fields {shape_of(source)} in, {shape_of(out)} out")
        a, b = paragraphs(source), paragraphs(out)
        if len(a) != len(b):
            dc.fail(fixture, f"{member}: {len(a)} paragraphs in, {len(b)} out")
            continue
        texts = [(x, y) for x, y in zip(a, b) if x.strip()]
        plain = dc.translate_lines(nmt, model, [dc.words(x) for x, _ in texts])
        for (src, got), expected in zip(texts, plain):
            if not dc.PROTECTED.search(src) and dc.words(got) != dc.words(expected):
                dc.fail(fixture, f"{member}: {src!r}: {got!r}, plain translation {expected!r}")
