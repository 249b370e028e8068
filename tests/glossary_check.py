#!/usr/bin/env python3
"""End to end: --glossary and --term with the bundled model (docs/glossary.md): plain text, greedy and beam,
no insertion where the source lacks the term, file errors, JSON lines, HTML and DOCX with the term inside
inline markup, directory mode's resume key, and `nmt serve`'s glossary field.
Usage: glossary_check.py NMT MODEL"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "serve"))
from serve_support import Server, check  # noqa: E402

NMT, MODEL = sys.argv[1], sys.argv[2]
# "Köter" is a German word for dog that the model does not choose for "dog" ("Hund").
TERM = "dog=Köter|Köters"


def nmt(*args, stdin=None):
    return subprocess.run([NMT, *args, "-m", MODEL, "--threads", "2"] if args[0] == "translate" else [NMT, *args],
                          input=stdin, capture_output=True, text=True)


def translate(*args, stdin=None):
    out = nmt("translate", "-q", *args, stdin=stdin)
    if out.returncode != 0:
        sys.exit(f"FAILED: nmt translate {args}: {out.stderr}")
    return out.stdout


DOCX_DOCUMENT = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
<w:p><w:r><w:t xml:space="preserve">A man rides a </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>bike</w:t></w:r>\
<w:r><w:t xml:space="preserve"> down the street.</w:t></w:r></w:p></w:body></w:document>"""
DOCX_PARTS = {
    "[Content_Types].xml": """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\
<Default Extension="xml" ContentType="application/xml"/>\
<Override PartName="/word/document.xml" \
ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>""",
    "_rels/.rels": """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
<Relationship Id="rId1" \
Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" \
Target="word/document.xml"/></Relationships>""",
    "word/document.xml": DOCX_DOCUMENT,
}


def main():
    work = tempfile.mkdtemp(prefix="nmt-glossary-")
    try:
        checks(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def checks(work):
    plain = translate("The dog sleeps on the sofa.")
    check("Köter" not in plain and "Hund" in plain, f"without a glossary the model says Hund: {plain!r}")
    for beam in ("1", "4"):
        out = translate("-b", beam, "--term", TERM, "The dog sleeps on the sofa.")
        check("Köter" in out, f"--term at beam {beam} puts the term in: {out!r}")
    out = translate("--term", TERM, "A cat sleeps on the sofa.", "THE DOG SLEEPS.")
    lines = out.splitlines()
    check("Köter" not in lines[0], f"no term where the source lacks it: {lines[0]!r}")
    check("KÖTER" in lines[1], f"an ALL-CAPS line keeps its term, in capitals: {lines[1]!r}")

    glossary = os.path.join(work, "terms.tsv")
    with open(glossary, "w", encoding="utf-8") as f:
        f.write("# terms\ndog\tKöter|Köters\nsofa\tCouch\n")
    out = translate("--glossary", glossary, "The dog sleeps on the sofa.")
    check("Köter" in out and "Couch" in out, f"--glossary FILE, two terms in one sentence: {out!r}")

    bad = os.path.join(work, "bad.tsv")
    with open(bad, "w", encoding="utf-8") as f:
        f.write("dog\tKöter\ncat Katze\n")
    target = os.path.join(work, "never.txt")
    res = nmt("translate", "--glossary", bad, "-o", target, "A dog.")
    check(res.returncode == 64 and res.stderr.startswith(f"nmt: {bad}:2: expected SOURCE<TAB>TARGET, found no tab")
          and len(res.stderr.splitlines()) == 1 and not os.path.exists(target),
          f"a malformed glossary line: exit 64, one line naming FILE:LINE, no output: {res.returncode} {res.stderr!r}")

    jsonl = translate("--input-format", "jsonl", "--output-format", "jsonl",
                      stdin=json.dumps({"text": "The dog sleeps.", "glossary": {"dog": "Köter"}}) + "\n" +
                      json.dumps({"text": "The dog sleeps."}) + "\n")
    records = [json.loads(line) for line in jsonl.splitlines()]
    check("Köter" in records[0]["text"] and "Köter" not in records[1]["text"],
          f"JSON lines: a line's glossary applies to that line only: {records}")

    html = os.path.join(work, "page.html")
    with open(html, "w", encoding="utf-8") as f:
        f.write("<html><body><p>A man rides a <b>bike</b> down the street.</p></body></html>\n")
    html_out = os.path.join(work, "page.de.html")
    translate("--term", "bike=Rad", "-i", html, "-o", html_out)
    page = open(html_out, encoding="utf-8").read()
    check("<b>Rad</b>" in page, f"HTML: the term inside inline markup keeps both: {page!r}")

    docx = os.path.join(work, "doc.docx")
    with zipfile.ZipFile(docx, "w") as z:
        for name, text in DOCX_PARTS.items():
            z.writestr(name, text)
    docx_out = os.path.join(work, "doc.de.docx")
    translate("--term", "bike=Rad", "-i", docx, "-o", docx_out)
    body = zipfile.ZipFile(docx_out).read("word/document.xml").decode("utf-8")
    check(re.search(r"<w:b/></w:rPr><w:t[^>]*>\s*Rad</w:t>", body) is not None, f"DOCX: the bold run holds the term: {body!r}")

    tree, tree_out = os.path.join(work, "tree"), os.path.join(work, "tree.de")
    os.makedirs(tree)
    with open(os.path.join(tree, "a.txt"), "w", encoding="utf-8") as f:
        f.write("The dog sleeps.\n")
    runs = []
    for terms in ("dog\tKöter\n", "dog\tKöter\n", "dog\tRüde\n"):
        with open(glossary, "w", encoding="utf-8") as f:
            f.write(terms)
        res = nmt("translate", "--glossary", glossary, "--input-dir", tree, "--output-dir", tree_out)
        runs.append(res.stderr.splitlines()[0] if res.returncode == 0 else res.stderr)
    result = open(os.path.join(tree_out, "a.txt"), encoding="utf-8").read()
    check(runs[1].startswith("nmt: 0 file(s) translated, 1 already done") and
          "1 retranslated (stale)" in runs[2] and "Rüde" in result,
          f"directory mode: the terms are part of the resume key: {runs} {result!r}")

    with open(glossary, "w", encoding="utf-8") as f:
        f.write("sofa\tCouch\n")
    with Server(NMT, "-m", MODEL, "--glossary", glossary) as server:
        answer = server.post("/translate", json={"q": "The dog sleeps on the sofa.", "source": "en", "target": "de",
                                                 "glossary": {"dog": "Köter"}}).json()
        check("Köter" in answer["translatedText"] and "Couch" in answer["translatedText"],
              f"serve: a request's glossary over --glossary: {answer}")
        answer = server.post("/translate", json={"q": "The dog sleeps.", "source": "en", "target": "de"}).json()
        check("Köter" not in answer["translatedText"], f"serve: another request has no such term: {answer}")
        bad = server.post("/translate", json={"q": "x", "source": "en", "target": "de", "glossary": ["dog"]})
        check(bad.status_code == 400 and "glossary" in bad.json()["error"], f"serve: a bad glossary is 400: {bad.text}")
        files = {"file": ("a.txt", b"The dog sleeps.\n")}
        answer = server.post("/translate_file", files=files,
                             data={"source": "en", "target": "de", "glossary": json.dumps({"dog": "Köter"})}).json()
        url = answer["translatedFileUrl"].replace("http://" + server.host + ":" + str(server.port), "")
        text = server.get(url).text
        check("Köter" in text, f"serve: /translate_file takes a glossary form field: {text!r}")
        server.stop()
    print("glossary: all checks passed")


if __name__ == "__main__":
    main()
