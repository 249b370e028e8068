#!/usr/bin/env python3
"""Writes talk.pptx, a real-world PPTX fixture modelled on what PowerPoint writes: a title slide with
placeholders, a slide whose shapes are grouped (a group inside a group), bullets on two levels, a table with
a merged cell, hyperlinks (r:id on a:hlinkClick), proofing marks (err="1", dirty="0"), a date field, and a
notes page per slide (slide image, notes body, slide-number field). Minimal parts written with zipfile, so
nothing fetched is committed.

Usage: make_real_world_pptx.py OUTPUT_DIR
"""
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import A, HEAD, P, R, rels, types  # noqa: E402

PML = f'xmlns:a="{A}" xmlns:p="{P}" xmlns:r="{R}"'
PML_TYPE = "application/vnd.openxmlformats-officedocument.presentationml."
GROUP_PROPS = '<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/>' \
              '<a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>'


def r(text, props=""):
    return f'<a:r><a:rPr lang="en-US" dirty="0"{props}/><a:t>{text}</a:t></a:r>'


def link(text, rel):
    return f'<a:r><a:rPr lang="en-US" dirty="0"><a:hlinkClick r:id="{rel}"/></a:rPr><a:t>{text}</a:t></a:r>'


def p(*runs, level=None):
    props = f'<a:pPr lvl="{level}"/>' if level is not None else ""
    return f'<a:p>{props}{"".join(runs)}<a:endParaRPr lang="en-US" dirty="0"/></a:p>'


def sp(number, name, paragraphs, placeholder=""):
    ph = f"<p:ph {placeholder}/>" if placeholder else ""
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="{number}" name="{name}"/><p:cNvSpPr><a:spLocks noGrp="1"/>'
            f'</p:cNvSpPr><p:nvPr>{ph}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>'
            f'{"".join(paragraphs)}</p:txBody></p:sp>')


def group(number, name, shapes):
    return (f'<p:grpSp><p:nvGrpSpPr><p:cNvPr id="{number}" name="{name}"/><p:cNvGrpSpPr/><p:nvPr/>'
            f'</p:nvGrpSpPr>{GROUP_PROPS}{"".join(shapes)}</p:grpSp>')


def tc(text, merge=""):
    return f'<a:tc{merge}><a:txBody><a:bodyPr/><a:lstStyle/>{p(r(text))}</a:txBody><a:tcPr/></a:tc>'


def tree(kind, shapes, tail=""):
    return (HEAD + f'<p:{kind} {PML}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/>'
            f'<p:nvPr/></p:nvGrpSpPr>{GROUP_PROPS}{"".join(shapes)}</p:spTree></p:cSld>{tail}</p:{kind}>')


def notes(text, slide_number):
    field = (f'<a:fld id="{{B6F15528-21DE-4FAA-801E-634DDDAF4B2B}}" type="slidenum"><a:rPr lang="en-US"/>'
             f'<a:t>{slide_number}</a:t></a:fld>')
    return tree("notes", [sp(2, "Slide Image Placeholder 1", [], 'type="sldImg"'),
                          sp(3, "Notes Placeholder 2", [p(r(text))], 'type="body" idx="1"'),
                          sp(4, "Slide Number Placeholder 3", [f"<a:p>{field}</a:p>"], 'type="sldNum" idx="5"')])


def slides():
    title = tree("sld", [
        sp(2, "Title 1", [p(r("A dog in the park"))], 'type="ctrTitle"'),
        sp(3, "Subtitle 2", [p(r("A talk about "), r("dogs", ' err="1"'), r(" and parks")),
                             p(r("Today: "), '<a:fld id="{1D8BD707-D9CF-40AE-B4C6-C98DA3205C09}" type="datetime1">'
                               '<a:rPr lang="en-US"/><a:t>5/1/2024</a:t></a:fld>')], 'type="subTitle" idx="1"')])
    table = ('<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="9" name="Table 8"/><p:cNvGraphicFramePr>'
             '<a:graphicFrameLocks noGrp="1"/></p:cNvGraphicFramePr><p:nvPr/></p:nvGraphicFramePr><p:xfrm>'
             '<a:off x="0" y="4000000"/><a:ext cx="6000000" cy="740000"/></p:xfrm><a:graphic><a:graphicData '
             'uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblPr firstRow="1" '
             'bandRow="1"/><a:tblGrid><a:gridCol w="3000000"/><a:gridCol w="3000000"/></a:tblGrid>'
             '<a:tr h="370000">' + tc("The dogs in the park", ' gridSpan="2"') + tc("", ' hMerge="1"') +
             '</a:tr><a:tr h="370000">' + tc("A black dog") + tc("A brown dog") + '</a:tr></a:tbl>'
             '</a:graphicData></a:graphic></p:graphicFrame>')
    body = tree("sld", [
        sp(2, "Title 1", [p(r("What the dog does"))], 'type="title"'),
        group(5, "Group 4", [
            sp(6, "TextBox 5", [p(r("A dog is running on the grass."), level=0),
                                p(r("It is chasing a "), r("red", ' b="1"'), r(" ball."), level=1)]),
            group(7, "Group 6", [sp(8, "TextBox 7", [p(r("Read more at the "), link("park website", "rId2"),
                                                       r("."))])])]),
        table])
    return [(title, "A man is standing in front of the audience.", []),
            (body, "Two children are playing with the dog.",
             [("rId2", "hyperlink", "https://example.org/park", ' TargetMode="External"')])]


def pptx_fixture(out):
    overrides = [("/ppt/presentation.xml", PML_TYPE + "presentation.main+xml"),
                 ("/ppt/slideMasters/slideMaster1.xml", PML_TYPE + "slideMaster+xml"),
                 ("/ppt/slideLayouts/slideLayout1.xml", PML_TYPE + "slideLayout+xml")]
    parts = {}
    slide_ids = ""
    presentation_rels = [("rId1", "slideMaster", "slideMasters/slideMaster1.xml", "")]
    for n, (slide, note, links) in enumerate(slides(), 1):
        overrides += [(f"/ppt/slides/slide{n}.xml", PML_TYPE + "slide+xml"),
                      (f"/ppt/notesSlides/notesSlide{n}.xml", PML_TYPE + "notesSlide+xml")]
        parts[f"ppt/slides/slide{n}.xml"] = slide
        parts[f"ppt/slides/_rels/slide{n}.xml.rels"] = rels(
            ("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml", ""), *links,
            ("rId9", "notesSlide", f"../notesSlides/notesSlide{n}.xml", ""))
        parts[f"ppt/notesSlides/notesSlide{n}.xml"] = notes(note, n)
        parts[f"ppt/notesSlides/_rels/notesSlide{n}.xml.rels"] = rels(("rId1", "slide", f"../slides/slide{n}.xml",
                                                                       ""))
        slide_ids += f'<p:sldId id="{255 + n}" r:id="rId{n + 1}"/>'
        presentation_rels.append((f"rId{n + 1}", "slide", f"slides/slide{n}.xml", ""))
    master = tree("sldMaster", [], '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" '
                  'accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" '
                  'hlink="hlink" folHlink="folHlink"/><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/>'
                  '</p:sldLayoutIdLst>')
    parts.update({
        "[Content_Types].xml": types([("rels", "application/vnd.openxmlformats-package.relationships+xml"),
                                      ("xml", "application/xml")], overrides),
        "_rels/.rels": rels(("rId1", "officeDocument", "ppt/presentation.xml", "")),
        "ppt/presentation.xml": HEAD + f'<p:presentation {PML} saveSubsetFonts="1"><p:sldMasterIdLst>'
        f'<p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst>{slide_ids}</p:sldIdLst>'
        '<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>',
        "ppt/_rels/presentation.xml.rels": rels(*presentation_rels),
        "ppt/slideMasters/slideMaster1.xml": master,
        "ppt/slideMasters/_rels/slideMaster1.xml.rels": rels(("rId1", "slideLayout",
                                                              "../slideLayouts/slideLayout1.xml", "")),
        "ppt/slideLayouts/slideLayout1.xml": tree("sldLayout", [sp(2, "Title 1", [p(r("Click to edit Master "
                                                                                     "title style"))],
                                                                   'type="title"')]),
        "ppt/slideLayouts/_rels/slideLayout1.xml.rels": rels(("rId1", "slideMaster",
                                                              "../slideMasters/slideMaster1.xml", "")),
    })
    order = ["[Content_Types].xml", "_rels/.rels"] + sorted(k for k in parts if k not in ("[Content_Types].xml",
                                                                                          "_rels/.rels"))
    with zipfile.ZipFile(os.path.join(out, "talk.pptx"), "w", zipfile.ZIP_DEFLATED) as z:
        for name in order:
            z.writestr(name, parts[name])


if __name__ == "__main__":
    pptx_fixture(sys.argv[1])
