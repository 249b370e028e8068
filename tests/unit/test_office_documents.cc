// DOCX and ODT without a model: an identity "translation" through the package path keeps every member,
// the text and the run formatting.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "documents/docx.h"
#include "documents/odt.h"
#include "documents/zip_package.h"

namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(NMT_TEST_FIXTURES) + "/documents/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Each segment "translated" as itself, every word aligned to itself.
std::vector<documents::SegmentTranslation> identity(std::vector<documents::Segment>& segments) {
  std::vector<documents::SegmentTranslation> out;
  for (const documents::Segment& s : segments) {
    documents::SegmentTranslation t{s.text, {}};
    int words = 0;
    bool in_word = false;
    for (char c : s.text) {
      if (c != ' ' && !in_word) t.links.push_back({words, words}), ++words;
      in_word = c != ' ';
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace

TEST_CASE("docx: an identity translation keeps members, text and bold runs", "[documents]") {
  const std::string source = read_fixture("report.docx");
  REQUIRE(!source.empty());
  std::vector<std::string> warnings;
  const std::string out = documents::translate_docx(source, "report.docx", &warnings, identity);
  const documents::ZipPackage before(source, "in"), after(out, "out");
  CHECK(before.names() == after.names());
  CHECK(warnings.empty());
  const std::string body = after.read("word/document.xml");
  const size_t black = body.find("black</w:t>");  // in the bold run (a space beside it may join it)
  REQUIRE(black != std::string::npos);
  CHECK(body.rfind("<w:b/></w:rPr><w:t xml:space=\"preserve\">", black) + 45 >= black);
  CHECK(body.find("dog is running on the grass.") != std::string::npos);
  CHECK(after.read("word/styles.xml") == before.read("word/styles.xml"));
}

TEST_CASE("odt: an identity translation keeps members, text, spans and links", "[documents]") {
  const std::string source = read_fixture("letter.odt");
  REQUIRE(!source.empty());
  const std::string out = documents::translate_odt(source, "letter.odt", nullptr, identity);
  const documents::ZipPackage before(source, "in"), after(out, "out");
  CHECK(before.names() == after.names());
  CHECK(after.names().front() == "mimetype");
  const std::string content = after.read("content.xml");
  CHECK(content.find(">black</text:span>") != std::string::npos);
  CHECK(content.find("xlink:href=\"https://example.com/dress\"") != std::string::npos);
  CHECK(content.find(">blue dress</text:a> is walking.") != std::string::npos);
}

TEST_CASE("docx: bytes that are not a package are an error naming the file", "[documents]") {
  CHECK_THROWS_WITH(documents::translate_docx("not a zip", "x.docx", nullptr, identity),
                    Catch::Contains("x.docx: not a zip package"));
}
