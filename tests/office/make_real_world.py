#!/usr/bin/env python3
"""Writes the real-world document fixtures that are zip packages, modelled on what Word, LibreOffice and EPUB
tools write (mammoth's and pandoc's test files): DOCX page breaks Word renders into runs, simple and complex
fields, a hyperlink, content controls, proofing marks, a table, a footnote whose mark shares its run and
tracked changes; ODT footnotes, spans, links, spaces, tabs, a soft page break, lists and line breaks; an
ODP's slide frames and notes; an ODT with a DTD entity; an EPUB 3 chapter with footnote references and its nav;
a PPTX as PowerPoint writes it (make_real_world_pptx.py). Minimal parts,
written with zipfile, so nothing fetched is committed.

Usage: make_real_world.py OUTPUT_DIR
"""
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_real_world_pptx  # noqa: E402

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
HEAD = "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"
DOC_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"


def write_docx(path, body, links=(), footnotes=None):
    rels = "".join(f'<Relationship Id="{i}" Type="{R}/hyperlink" Target="{t}" TargetMode="External"/>'
                   for i, t in links)
    if footnotes:
        rels += f'<Relationship Id="rIdFn" Type="{R}/footnotes" Target="footnotes.xml"/>'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", HEAD + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                   'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
                   'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override '
                   f'PartName="/word/document.xml" ContentType="{DOC_TYPE}"/></Types>')
        z.writestr("_rels/.rels", HEAD + '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                   f'relationships"><Relationship Id="rId1" Type="{R}/officeDocument" Target="word/document.xml"/>'
                   '</Relationships>')
        z.writestr("word/_rels/document.xml.rels", HEAD + '<Relationships xmlns="http://schemas.openxmlformats.'
                   f'org/package/2006/relationships">{rels}</Relationships>')
        if footnotes:
            z.writestr("word/footnotes.xml", HEAD + f'<w:footnotes xmlns:w="{W}">{footnotes}</w:footnotes>')
        z.writestr("word/document.xml", HEAD + f'<w:document xmlns:w="{W}" xmlns:r="{R}"><w:body>{body}'
                   '<w:sectPr/></w:body></w:document>')


def r(text, props=""):
    return f'<w:r>{props and "<w:rPr>" + props + "</w:rPr>"}<w:t xml:space="preserve">{text}</w:t></w:r>'


def p(*runs):
    return "<w:p>" + "".join(runs) + "</w:p>"


def docx_fixtures(out):
    write_docx(os.path.join(out, "page-breaks.docx"),
               p(r("A dog is running "), "<w:r><w:lastRenderedPageBreak/><w:t>in the park.</w:t></w:r>") +
               p("<w:r><w:br w:type=\"page\"/></w:r>", r("A man is sitting on a bench.")) +
               p(r("A woman is "), "<w:r><w:tab/></w:r>", r("walking", "<w:b/>"), r(" a dog.")))
    field = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> HYPERLINK '
             '"https://e.com/dogs" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
             + r("dogs", "<w:u w:val=\"single\"/>") + '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    write_docx(os.path.join(out, "fields.docx"),
               p(r("A man is looking at the "), field, r(" in the park.")) +
               p('<w:bookmarkStart w:id="0" w:name="_Toc1"/>', r("A girl is jumping into the pool."),
                 '<w:bookmarkEnd w:id="0"/>') +
               p(r("Page "), '<w:fldSimple w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple>') +
               p(r("A boy is swimming in the "), '<w:hyperlink r:id="rId9">' + r("water", '<w:rStyle w:val='
                 '"Hyperlink"/>') + "</w:hyperlink>", r(".")), links=[("rId9", "https://e.com/water")])
    note = ('<w:footnote w:id="1"><w:p><w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteRef/>'
            '<w:t xml:space="preserve"> A woman is walking on the beach.</w:t></w:r></w:p></w:footnote>')
    write_docx(os.path.join(out, "footnotes.docx"),
               p(r("A dog is running in the park."), '<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr>'
                 '<w:footnoteReference w:id="1"/></w:r>'), footnotes=note)
    write_docx(os.path.join(out, "tracked-changes.docx"),
               p(r("A dog is "), '<w:ins w:id="1" w:author="A" w:date="2024-05-01T10:00:00Z">' + r("running") +
                 "</w:ins>", '<w:del w:id="2" w:author="A"><w:r><w:delText>sleeping</w:delText></w:r></w:del>',
                 r(" in the park.")) +
               p('<w:moveTo w:id="3" w:author="A">' + r("A man is sitting on a bench.") + "</w:moveTo>"))
    cell = '<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>{}</w:tc>'
    write_docx(os.path.join(out, "content-controls.docx"),
               '<w:sdt><w:sdtPr><w:alias w:val="Title"/></w:sdtPr><w:sdtContent>' +
               p(r("A dog is running on the beach.")) + "</w:sdtContent></w:sdt>" +
               p(r("A man "), '<w:sdt><w:sdtPr/><w:sdtContent>' + r("is sitting", "<w:i/>") +
                 "</w:sdtContent></w:sdt>", r(" on a bench.")) +
               p('<w:proofErr w:type="spellStart"/>', r("A woman is walking"), '<w:proofErr w:type="spellEnd"/>',
                 r(" on the street.")) +
               "<w:tbl><w:tblPr/><w:tblGrid><w:gridCol w:w=\"2000\"/><w:gridCol w:w=\"2000\"/></w:tblGrid><w:tr>" +
               cell.format(p(r("A boy is jumping."))) + cell.format(p(r("A girl is smiling."))) + "</w:tr></w:tbl>")


ODF_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
ODF_MIME = "application/vnd.oasis.opendocument.text"
ODF_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
ODF_PRESENTATION = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"


def write_odt(path, body, mime=ODF_MIME, kind="text", doctype=""):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), mime, compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/manifest.xml", '<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:'
                   'manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
                   f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mime}"/>'
                   '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                   '</manifest:manifest>')
        z.writestr("content.xml", '<?xml version="1.0" encoding="UTF-8"?>\n' + doctype + '<office:document-content xmlns:office='
                   f'"{ODF_OFFICE}" xmlns:text="{ODF_TEXT}" xmlns:xlink="http://www.w3.org/1999/xlink" '
                   f'xmlns:draw="{ODF_DRAW}" xmlns:presentation="{ODF_PRESENTATION}" office:version="1.2">'
                   f'<office:body><office:{kind}>{body}</office:{kind}></office:body></office:document-content>')


def odt_fixtures(out):
    write_odt(os.path.join(out, "notes.odt"),
              '<text:h text:outline-level="1">A dog in the park</text:h>'
              '<text:p text:style-name="P1">A man is riding a bike.<text:note text:id="ftn1" text:note-class='
              '"footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>A woman is walking.'
              '</text:p></text:note-body></text:note></text:p>'
              '<text:p>A <text:span text:style-name="T1">black</text:span> dog<text:s text:c="2"/>is running '
              'on the <text:a xlink:type="simple" xlink:href="https://e.com/beach">beach</text:a>.</text:p>'
              '<text:p>A boy is<text:tab/>jumping.<text:soft-page-break/> A girl is smiling.</text:p>')
    write_odt(os.path.join(out, "lists.odt"),
              '<text:list text:style-name="L1"><text:list-item><text:p>A dog is running.</text:p></text:list-item>'
              '<text:list-item><text:p>A man is sitting.</text:p></text:list-item></text:list>'
              '<text:p><text:bookmark text:name="b1"/>A woman is walking.<text:line-break/>A child is playing.'
              '</text:p>')


def entities_fixture(out):
    """An ODT whose content.xml declares an entity in its DTD and uses it in a paragraph."""
    write_odt(os.path.join(out, "entities.odt"), "<text:p>A dog is running with &product; in the park.</text:p>",
              doctype='<!DOCTYPE office:document-content [\n<!ENTITY product "DogPark">\n]>\n')


def odp_fixture(out):
    """An ODF presentation (which LibreTranslate accepts): text frames on a slide and the speaker's notes."""
    frame = '<draw:frame draw:name="{}"><draw:text-box>{}</draw:text-box></draw:frame>'
    write_odt(os.path.join(out, "slides.odp"),
              '<draw:page draw:name="page1">' + frame.format("Title", "<text:p>A dog in the park</text:p>") +
              frame.format("Body", '<text:list><text:list-item><text:p>A dog is <text:span text:style-name="T1">'
                           'running</text:span>.</text:p></text:list-item></text:list>') +
              '<presentation:notes><draw:frame><draw:text-box><text:p>A man is sitting on a bench.</text:p>'
              '</draw:text-box></draw:frame></presentation:notes></draw:page>',
              mime="application/vnd.oasis.opendocument.presentation", kind="presentation")


def epub_fixture(out):
    xhtml = ('<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub='
             '"http://www.idpf.org/2007/ops" xml:lang="en" lang="en"><head><title>{}</title></head><body>{}'
             '</body></html>')
    nav = ('<nav epub:type="toc" id="toc"><ol><li><a href="chapter.xhtml">A dog in the park</a></li></ol></nav>')
    chapter = ('<section epub:type="chapter"><h1>A dog in the park</h1><p>A dog is running in the park.<a '
               'epub:type="noteref" href="#n1" id="r1"><sup>1</sup></a></p><aside epub:type="footnote" id="n1">'
               '<p><a href="#r1">1.</a> A man is sitting on a bench.</p></aside></section>')
    opf = ('<?xml version="1.0" encoding="UTF-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
           'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">'
           'urn:uuid:1</dc:identifier><dc:title>A dog in the park</dc:title><dc:language>en</dc:language>'
           '</metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties='
           '"nav"/><item id="c1" href="chapter.xhtml" media-type="application/xhtml+xml"/></manifest><spine>'
           '<itemref idref="c1"/></spine></package>')
    with zipfile.ZipFile(os.path.join(out, "footnotes.epub"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?>\n<container version="1.0" xmlns="urn:oasis:'
                   'names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
                   'media-type="application/oebps-package+xml"/></rootfiles></container>')
        z.writestr("OEBPS/content.opf", opf)
        z.writestr("OEBPS/nav.xhtml", xhtml.format("Contents", nav))
        z.writestr("OEBPS/chapter.xhtml", xhtml.format("A dog in the park", chapter))


if __name__ == "__main__":
    docx_fixtures(sys.argv[1])
    odt_fixtures(sys.argv[1])
    odp_fixture(sys.argv[1])
    entities_fixture(sys.argv[1])
    epub_fixture(sys.argv[1])
    make_real_world_pptx.pptx_fixture(sys.argv[1])
