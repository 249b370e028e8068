#!/bin/sh
# Directory mode over a mixed tree (html, md, srt, docx, odt, pptx, txt): every file translated in its format in
# one run, then all of them already done on a rerun (resume), and again translated with another --format.
# Usage: documents_tree_check.sh NMT MODEL FIXTURES_DIR
set -eu
nmt=$1 model=$2 fixtures=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/in/sub"
cp "$fixtures/page.html" "$fixtures/guide.md" "$fixtures/report.docx" "$fixtures/letter.odt" "$tmp/in/"
cp "$fixtures/film.srt" "$tmp/in/sub/"
/usr/bin/python3 "$(dirname "$0")/office/make_fixtures.py" "$tmp" && cp "$tmp/slides.pptx" "$tmp/in/sub/"
echo "A dog runs." > "$tmp/in/a.txt"
"$nmt" translate -m "$model" -b 1 --input-dir "$tmp/in" --output-dir "$tmp/out" 2> "$tmp/first"
grep -q "7 file(s) translated, 0 already done" "$tmp/first" || { cat "$tmp/first"; echo "FAIL: first run"; exit 1; }
cmp "$tmp/out/page.html" "$fixtures/page.html.expected"
cmp "$tmp/out/guide.md" "$fixtures/guide.md.expected"
cmp "$tmp/out/sub/film.srt" "$fixtures/film.srt.expected"
test "$(cat "$tmp/out/a.txt")" = "$(echo 'A dog runs.' | "$nmt" translate -q -m "$model" -b 1)"
/usr/bin/python3 -c "import docx, sys; sys.exit(0 if 'Hund' in docx.Document(sys.argv[1]).paragraphs[1].text else 1)" \
  "$tmp/out/report.docx"
/usr/bin/python3 -c "import zipfile, sys; z = zipfile.ZipFile(sys.argv[1]); \
sys.exit(0 if 'Frau' in z.read('ppt/notesSlides/notesSlide1.xml').decode() else 1)" "$tmp/out/sub/slides.pptx"
"$nmt" translate -m "$model" -b 1 --input-dir "$tmp/in" --output-dir "$tmp/out" 2> "$tmp/second"
grep -q "0 file(s) translated, 7 already done" "$tmp/second" || { cat "$tmp/second"; echo "FAIL: resume"; exit 1; }
echo "mixed tree: translated, then resumed"
