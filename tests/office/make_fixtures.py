#!/usr/bin/env python3
"""Writes the office fixtures python-pptx and python-docx cannot make: slides.pptx (bold and italic runs,
a link, a URL, a number, a line break, a slide-number field, a table and notes) and boxes.docx (a text box
inside a paragraph's drawing, and comments). Minimal OOXML parts, written with zipfile.

Usage: make_fixtures.py OUTPUT_DIR
"""
import os
import sys
import zipfile

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
REL = "http://schemas.openxmlformats.org/package/2006/relationships"
CT = "http://schemas.openxmlformats.org/package/2006/content-types"
DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
HEAD = "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"


def rels(*items):
    body = "".join(f'<Relationship Id="{i}" Type="{DOC_REL}{t}" Target="{target}"{extra}/>'
                   for i, t, target, extra in items)
    return HEAD + f'<Relationships xmlns="{REL}">{body}</Relationships>'


def types(defaults, overrides):
    body = "".join(f'<Default Extension="{e}" ContentType="{c}"/>' for e, c in defaults)
    body += "".join(f'<Override PartName="{p}" ContentType="{c}"/>' for p, c in overrides)
    return HEAD + f'<Types xmlns="{CT}">{body}</Types>'


def run(text, props=""):
    return f'<a:r><a:rPr lang="en-US"{props}/><a:t>{text}</a:t></a:r>'


def shape(number, name, paragraphs):
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="{number}" name="{name}"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/>'
            f'<p:txBody><a:bodyPr/><a:lstStyle/>{"".join(paragraphs)}</p:txBody></p:sp>')


def para(*runs, end=True):
    return "<a:p>" + "".join(runs) + ('<a:endParaRPr lang="en-US"/>' if end else "") + "</a:p>"


def cell(text):
    return f'<a:tc><a:txBody><a:bodyPr/><a:lstStyle/>{para(run(text))}</a:txBody><a:tcPr/></a:tc>'


def slides_pptx(path):
    pml = f'xmlns:a="{A}" xmlns:p="{P}" xmlns:r="{R}"'
    table = ('<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Table"/><p:cNvGraphicFramePr/><p:nvPr/>'
             '</p:nvGraphicFramePr><p:xfrm><a:off x="0" y="3000000"/><a:ext cx="6000000" cy="740000"/></p:xfrm>'
             '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>'
             '<a:tblGrid><a:gridCol w="3000000"/><a:gridCol w="3000000"/></a:tblGrid><a:tr h="370000">'
             + cell("A boy is swimming.") + cell("A girl is jumping.") +
             '</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>')
    slide = (HEAD + f'<p:sld {pml}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/>'
             '<p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
             + shape(2, "Title", [para(run("A man is riding a bike."))])
             + shape(3, "Body", [
                 para(run("A "), run("black", ' b="1"'), run(" dog is running on the grass.")),
                 para(run("Two children are playing with a "), run("red", ' i="1"'), run(" ball.")),
                 para(run("A woman is walking to the "),
                      '<a:r><a:rPr lang="en-US"><a:hlinkClick r:id="rId2"/></a:rPr><a:t>park</a:t></a:r>',
                      run(".")),
                 para(run("Visit https://example.org/park today.")),
                 para(run("A dog runs."), '<a:br><a:rPr lang="en-US"/></a:br>', run("A cat sleeps.")),
                 para(run("Slide "), '<a:fld id="{B6F15528-21DE-4FAA-801E-634DDDAF4B2B}" type="slidenum">'
                      '<a:rPr lang="en-US"/><a:t>1</a:t></a:fld>'),
                 para(run("3 men are standing on a street.")),
                 '<a:p><a:endParaRPr lang="en-US"/></a:p>'])
             + table + '</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>')
    notes = (HEAD + f'<p:notes {pml}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/>'
             '<p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
             + shape(2, "Notes", [para(run("A woman is reading a book."))]) + '</p:spTree></p:cSld></p:notes>')
    master = (HEAD + f'<p:sldMaster {pml}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/>'
              '<p:nvPr/></p:nvGrpSpPr><p:grpSpPr/></p:spTree></p:cSld><p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" '
              'tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" '
              'accent6="accent6" hlink="hlink" folHlink="folHlink"/><p:sldLayoutIdLst>'
              '<p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>')
    layout = (HEAD + f'<p:sldLayout {pml}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/>'
              '<p:nvPr/></p:nvGrpSpPr><p:grpSpPr/></p:spTree></p:cSld></p:sldLayout>')
    presentation = (HEAD + f'<p:presentation {pml}><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/>'
                    '</p:sldMasterIdLst><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst>'
                    '<p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>')
    pml_ct = "application/vnd.openxmlformats-officedocument.presentationml."
    parts = {
        "[Content_Types].xml": types(
            [("rels", "application/vnd.openxmlformats-package.relationships+xml"), ("xml", "application/xml")],
            [("/ppt/presentation.xml", pml_ct + "presentation.main+xml"),
             ("/ppt/slides/slide1.xml", pml_ct + "slide+xml"),
             ("/ppt/notesSlides/notesSlide1.xml", pml_ct + "notesSlide+xml"),
             ("/ppt/slideMasters/slideMaster1.xml", pml_ct + "slideMaster+xml"),
             ("/ppt/slideLayouts/slideLayout1.xml", pml_ct + "slideLayout+xml")]),
        "_rels/.rels": rels(("rId1", "officeDocument", "ppt/presentation.xml", "")),
        "ppt/presentation.xml": presentation,
        "ppt/_rels/presentation.xml.rels": rels(("rId1", "slideMaster", "slideMasters/slideMaster1.xml", ""),
                                                ("rId2", "slide", "slides/slide1.xml", "")),
        "ppt/slideMasters/slideMaster1.xml": master,
        "ppt/slideMasters/_rels/slideMaster1.xml.rels": rels(("rId1", "slideLayout",
                                                              "../slideLayouts/slideLayout1.xml", "")),
        "ppt/slideLayouts/slideLayout1.xml": layout,
        "ppt/slideLayouts/_rels/slideLayout1.xml.rels": rels(("rId1", "slideMaster",
                                                              "../slideMasters/slideMaster1.xml", "")),
        "ppt/slides/slide1.xml": slide,
        "ppt/slides/_rels/slide1.xml.rels": rels(
            ("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml", ""),
            ("rId2", "hyperlink", "https://example.org/park", ' TargetMode="External"'),
            ("rId3", "notesSlide", "../notesSlides/notesSlide1.xml", "")),
        "ppt/notesSlides/notesSlide1.xml": notes,
        "ppt/notesSlides/_rels/notesSlide1.xml.rels": rels(("rId1", "slide", "../slides/slide1.xml", "")),
    }
    write_zip(path, parts)


def wpara(*runs):
    return "<w:p>" + "".join(runs) + "</w:p>"


def wrun(text, props=""):
    return f'<w:r>{"<w:rPr>" + props + "</w:rPr>" if props else ""}<w:t xml:space="preserve">{text}</w:t></w:r>'


def boxes_docx(path):
    wps = "http://schemas.microsoft.com/office/word/2010/wordprocessingShape"
    wp = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
    box = ('<w:r><w:drawing><wp:anchor distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="1" '
           'behindDoc="0" locked="0" layoutInCell="1" allowOverlap="1"><wp:simplePos x="0" y="0"/>'
           '<wp:positionH relativeFrom="column"><wp:posOffset>0</wp:posOffset></wp:positionH>'
           '<wp:positionV relativeFrom="paragraph"><wp:posOffset>0</wp:posOffset></wp:positionV>'
           '<wp:extent cx="2000000" cy="500000"/><wp:wrapNone/><wp:docPr id="1" name="Text Box 1"/>'
           f'<a:graphic xmlns:a="{A}"><a:graphicData uri="{wps}"><wps:wsp><wps:cNvSpPr txBox="1"/>'
           '<wps:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="2000000" cy="500000"/></a:xfrm>'
           '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></wps:spPr><wps:txbx><w:txbxContent>'
           + wpara(wrun("A "), wrun("little", "<w:b/>"), wrun(" girl is climbing a tree."))
           + '</w:txbxContent></wps:txbx><wps:bodyPr/></wps:wsp></a:graphicData></a:graphic></wp:anchor>'
           '</w:drawing></w:r>')
    body = (wpara(wrun("A man is riding a bike.")) +
            wpara(wrun("A dog is running on the grass."), box) +
            wpara('<w:commentRangeStart w:id="0"/>', wrun("Two children are playing."), '<w:commentRangeEnd w:id="0"/>',
                  '<w:r><w:commentReference w:id="0"/></w:r>'))
    document = (HEAD + f'<w:document xmlns:w="{W}" xmlns:r="{R}" xmlns:wp="{wp}" xmlns:wps="{wps}">'
                f'<w:body>{body}<w:sectPr/></w:body></w:document>')
    comments = (HEAD + f'<w:comments xmlns:w="{W}"><w:comment w:id="0" w:author="A" w:initials="A">'
                + wpara(wrun("A woman is "), wrun("reading", "<w:i/>"), wrun(" a book.")) + '</w:comment></w:comments>')
    wml_ct = "application/vnd.openxmlformats-officedocument.wordprocessingml."
    parts = {
        "[Content_Types].xml": types(
            [("rels", "application/vnd.openxmlformats-package.relationships+xml"), ("xml", "application/xml")],
            [("/word/document.xml", wml_ct + "document.main+xml"),
             ("/word/comments.xml", wml_ct + "comments+xml")]),
        "_rels/.rels": rels(("rId1", "officeDocument", "word/document.xml", "")),
        "word/document.xml": document,
        "word/_rels/document.xml.rels": rels(("rId1", "comments", "comments.xml", "")),
        "word/comments.xml": comments,
    }
    write_zip(path, parts)


def write_zip(path, parts):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in parts.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # the same bytes on every run
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)


if __name__ == "__main__":
    slides_pptx(os.path.join(sys.argv[1], "slides.pptx"))
    boxes_docx(os.path.join(sys.argv[1], "boxes.docx"))
