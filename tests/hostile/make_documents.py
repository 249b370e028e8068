#!/usr/bin/python3
"""Writes hostile documents into a folder: trees nested far past any reader's depth bound, zip packages
that inflate far past their size or claim sizes they do not hold. Each is small on disk; none is
committed. Usage: make_documents.py DIR"""
import io
import os
import struct
import sys
import zipfile
import zlib

DEEP = 50000  # levels: far past documents::kMaxNestingDepth, and past what an 8 MB stack recursed


def write(path, data):
    with open(path, 'wb') as f:
        f.write(data.encode() if isinstance(data, str) else data)


def package(path, members):
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            method = zipfile.ZIP_STORED if name == 'mimetype' else zipfile.ZIP_DEFLATED
            z.writestr(zipfile.ZipInfo(name), data, compress_type=method)


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
                 'package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>'
                 '</Types>')


def docx_body(inner):
    return f'<?xml version="1.0" encoding="UTF-8"?><w:document {W}><w:body>{inner}</w:body></w:document>'


def deep_docx(path):
    para = '<w:p><w:r><w:t>A dog runs.</w:t></w:r></w:p>'
    inner = '<w:sdt><w:sdtContent>' * DEEP + para + '</w:sdtContent></w:sdt>' * DEEP
    package(path, [('[Content_Types].xml', CONTENT_TYPES), ('word/document.xml', docx_body(inner))])


def deep_odt(path):
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
    p = '<text:p>' + '<text:span>' * DEEP + 'A dog runs.' + '</text:span>' * DEEP + '</text:p>'
    content = f'<office:document-content {ns}><office:body><office:text>{p}</office:text></office:body>' \
              '</office:document-content>'
    package(path, [('mimetype', 'application/vnd.oasis.opendocument.text'), ('content.xml', content)])


def deep_epub(path):
    container = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:'
                 'container"><rootfiles><rootfile full-path="OEBPS/book.opf" media-type="application/'
                 'oebps-package+xml"/></rootfiles></container>')
    opf = ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata '
           'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>A book</dc:title></metadata><manifest>'
           '<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>'
           '<item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/></manifest></package>')
    head = '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>'
    deep = head + '<span>' * DEEP + 'A dog runs.' + '</span>' * DEEP + '</body></html>'
    fine = head + '<p>A dog runs.</p></body></html>'
    package(path, [('mimetype', 'application/epub+zip'), ('META-INF/container.xml', container),
                   ('OEBPS/book.opf', opf), ('OEBPS/c1.xhtml', deep), ('OEBPS/c2.xhtml', fine)])


def inflating_docx(path, understated_path, megabytes):
    """A DOCX whose document.xml inflates to `megabytes` MB of one paragraph's runs, and one whose
    document.xml declares 10 kB and inflates to as much."""
    run = '<w:r><w:t>A dog runs. </w:t></w:r>'
    head = (docx_body('<w:p>').split('<w:p>')[0] + '<w:p>').encode()
    tail = b'</w:p></w:body></w:document>'
    chunk = (run * ((1 << 20) // len(run))).encode()
    count = megabytes * (1 << 20) // len(chunk)
    # Each piece ends with a full flush, which empties the window: one chunk's deflate stream, written
    # `count` times, inflates to `count` chunks.
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = compressor.compress(head) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    last = compressor.compress(tail) + compressor.flush()
    crc = zlib.crc32(head)
    for _ in range(count):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + count * len(chunk) + len(tail)
    parts = [first, block * count, last]
    for where, declared in ((path, size), (understated_path, 10000)):
        raw_member(where, [('[Content_Types].xml', CONTENT_TYPES.encode(), None),
                           ('word/document.xml', b''.join(parts), (declared, crc))])


def lying_docx(path, claimed):
    """A DOCX whose document.xml claims `claimed` bytes inflated and holds a few."""
    xml = docx_body('<w:p><w:r><w:t>A dog runs.</w:t></w:r></w:p>').encode()
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = compressor.compress(xml) + compressor.flush()
    raw_member(path, [('word/document.xml', data, (claimed, zlib.crc32(xml)))])


def raw_member(path, members):
    """A zip written by hand, so a member's sizes may say what the data does not."""
    out, directory = io.BytesIO(), io.BytesIO()
    for name, data, sizes in members:
        if sizes is None:
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
            raw, data = data, compressor.compress(data) + compressor.flush()
            sizes = (len(raw), zlib.crc32(raw))
        size, crc = sizes
        offset = out.tell()
        name_bytes = name.encode()
        out.write(struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0, crc, len(data),
                              min(size, 0xFFFFFFFF), len(name_bytes), 0) + name_bytes + data)
        directory.write(struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 8, 0, 0, crc, len(data),
                                    min(size, 0xFFFFFFFF), len(name_bytes), 0, 0, 0, 0, 0, offset) +
                        name_bytes)
    start = out.tell()
    out.write(directory.getvalue())
    out.write(struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(members), len(members),
                          len(directory.getvalue()), start, 0))
    write(path, out.getvalue())


def many_members_docx(path, count):
    raw_member(path, [('[Content_Types].xml', CONTENT_TYPES.encode(), None),
                      ('word/document.xml', docx_body('<w:p><w:r><w:t>A dog.</w:t></w:r></w:p>').encode(),
                       None)] + [(f'x/{i}', b'', None) for i in range(count)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write(f'{out}/deep_span.html', '<p>' + '<span>' * DEEP + 'A dog runs.' + '</span>' * DEEP + '</p>')
    write(f'{out}/deep_div.html', '<div>' * 25000 + '<p>A dog runs.</p>' + '</div>' * 25000)
    write(f'{out}/deep.xml', '<a>' * DEEP + 'A dog runs.' + '</a>' * DEEP)
    write(f'{out}/deep_quote.md', '> ' * 37500 + 'A dog runs.\n')
    write(f'{out}/deep_list.md', '- ' * 37500 + 'A dog runs.\n')
    write(f'{out}/deep_html_block.md', '<div>\n' + '<span>' * DEEP + 'A dog.' + '</span>' * DEEP + '\n</div>\n')
    # 40 kB: std::regex, recursing per character, overflowed an 8 MB stack from some 30 kB on.
    write(f'{out}/long_url.md', 'See https://example.org/' + 'a' * 40000 + ' now.\n')
    write(f'{out}/quote.html', "<img src=x alt='... /a&#39;onerror=alert(1)//x'>\n")
    write(f'{out}/long_number.md', 'It costs ' + '1.' * 20000 + '5 euros.\n')
    deep_docx(f'{out}/deep.docx')
    deep_odt(f'{out}/deep.odt')
    deep_epub(f'{out}/deep.epub')
    inflating_docx(f'{out}/inflating.docx', f'{out}/understated.docx', int(os.environ.get('INFLATE_MB', '1000')))
    lying_docx(f'{out}/lying.docx', 1900 * 1000 * 1000)
    many_members_docx(f'{out}/many_members.docx', 25000)


if __name__ == '__main__':
    main()
