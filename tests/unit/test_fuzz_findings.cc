// What the document fuzzers found (tests/fuzz/, docs/fuzzing.md), each input run as its fuzzer ran it: the
// first byte picked the reader, the rest is the member it was zipped into.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "document_test_support.h"
#include "documents/docx.h"
#include "documents/odt.h"
#include "documents/office_package.h"
#include "documents/zip_package.h"
#include "test_support.h"

namespace {

std::vector<documents::SegmentTranslation> identity(std::vector<documents::Segment>& segments) {
  std::vector<documents::SegmentTranslation> out;
  for (documents::Segment& s : segments) {
    documents::protect_spans(s);
    out.push_back(test::identity(s));
  }
  return out;
}

std::string member_of_finding(const std::string& name) {
  return test::read_file(test::fixtures_dir() + "/documents/fuzz-findings/" + name).substr(1);
}

}  // namespace

TEST_CASE("fuzz findings: the markers' characters in a paragraph's text are no marker", "[documents]") {
  // fuzz_office found both: a run's text holding \x01 read as a marker, std::stoul threw past every catch.
  const std::string docx =
      test::zip_of({{"word/document.xml", member_of_finding("docx-marker-in-text.bin")}});
  CHECK_NOTHROW(documents::translate_docx(docx, "f.docx", nullptr, identity, 1 << 20, "de"));
  const std::string odt = test::zip_of({{"mimetype", "application/vnd.oasis.opendocument.text"},
                                        {"content.xml", member_of_finding("odt-marker-in-text.bin")}});
  CHECK_NOTHROW(documents::translate_odt(odt, "f.odt", nullptr, identity, 1 << 20, "de"));

  // The same, written small: the characters read as spaces, the rest of the text kept.
  const std::string marked = test::zip_of(
      {{"word/document.xml",
        "<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>A\x01r0\x02 dog\x01x runs.</w:t></w:r></w:p>"
        "</w:body></w:document>"}});
  const std::string out = documents::translate_docx(marked, "f.docx", nullptr, identity);
  const std::string body = documents::ZipPackage(out, "out").read("word/document.xml");
  CHECK(body.find("A r0  dog x runs.") != std::string::npos);
}
