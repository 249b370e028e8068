#!/usr/bin/env python3
"""Writes tests/fixtures/documents/book.epub: a small EPUB 3 book (with an EPUB 2 toc.ncx) whose chapter has
inline markup, a link, code, translate="no" and an image's alt text. Deterministic: the same bytes each run.

Usage: make_epub_fixture.py [OUTPUT]
"""
import os
import sys
import zipfile

CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
"""

OPF = """<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:6f1c2d3e-0000-4000-8000-000000000032</dc:identifier>
    <dc:title>A dog in the park</dc:title>
    <dc:description>A man is sitting on a bench.</dc:description>
    <dc:creator>Two children</dc:creator>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2026-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <item id="chapter" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
    <item id="dog" href="dog.png" media-type="image/png"/>
  </manifest>
  <spine toc="ncx">
    <itemref idref="chapter"/>
  </spine>
</package>
"""

NAV = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en">
<head><title>Contents</title></head>
<body>
<nav epub:type="toc"><ol><li><a href="text/chapter%201.xhtml">A dog in the park</a></li></ol></nav>
</body>
</html>
"""

NCX = """<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
  <head><meta name="dtb:uid" content="urn:uuid:6f1c2d3e-0000-4000-8000-000000000032"/></head>
  <docTitle><text>A dog in the park</text></docTitle>
  <navMap>
    <navPoint id="p1" playOrder="1">
      <navLabel><text>A black dog is running on the grass.</text></navLabel>
      <content src="text/chapter%201.xhtml"/>
    </navPoint>
  </navMap>
</ncx>
"""

CHAPTER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head><title>A dog in the park</title><link rel="stylesheet" href="../style.css"/></head>
<body>
<h1>A dog in the park</h1>
<p>A <strong>black</strong> dog is running on the grass.<br/>A man is sitting on a bench.</p>
<p>A woman in a <a href="https://example.com/dress">blue dress</a> is walking &amp; talking.</p>
<p>Run <code>nmt translate</code> in a shell.</p>
<p translate="no">Two children are playing.</p>
<p><img src="../dog.png" alt="A brown dog"/> Two children are playing.</p>
</body>
</html>
"""

# A 1x1 PNG: a binary member that must come out byte for byte.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "fixtures", "documents",
                                                              "book.epub")
    with zipfile.ZipFile(out, "w") as z:
        def add(name, data, method=zipfile.ZIP_DEFLATED):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
        add("mimetype", "application/epub+zip", zipfile.ZIP_STORED)  # first and stored, as OCF requires
        add("META-INF/container.xml", CONTAINER)
        add("OEBPS/content.opf", OPF)
        add("OEBPS/nav.xhtml", NAV)
        add("OEBPS/toc.ncx", NCX)
        add("OEBPS/text/chapter 1.xhtml", CHAPTER)
        add("OEBPS/style.css", "p { margin: 0 }\n")
        add("OEBPS/dog.png", PNG, zipfile.ZIP_STORED)


if __name__ == "__main__":
    main()
