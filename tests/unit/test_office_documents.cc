// DOCX and ODT without a model: an identity "translation" through the package path keeps every member,
// the text and the run formatting.
#include <catch2/catch.hpp>
#include <cctype>
#include <fstream>
#include <iterator>

#include "document_test_support.h"
#include "documents/docx.h"
#include "documents/odt.h"
#include "documents/pptx.h"
#include "documents/zip_package.h"

namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(NMT_TEST_FIXTURES) + "/documents/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Each segment "translated" as itself, every word aligned to itself.
std::vector<documents::SegmentTranslation> identity(std::vector<documents::Segment>& segments) {
  std::vector<documents::SegmentTranslation> out;
  for (const documents::Segment& s : segments) out.push_back(test::identity(s));
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

// The smallest PPTX package a:p needs: a slide with a bold run and a line break, and a member it keeps.
std::string small_pptx() {
  return test::zip_of(
      {{"ppt/presentation.xml", "<p:presentation xmlns:p=\"p\"/>"},
       {"ppt/slides/slide1.xml",
        "<p:sld xmlns:a=\"a\" xmlns:p=\"p\"><a:p><a:pPr algn=\"ctr\"/><a:r><a:rPr/><a:t>A </a:t></a:r>"
        "<a:r><a:rPr b=\"1\"/><a:t>black</a:t></a:r><a:r><a:rPr/><a:t> dog.</a:t></a:r><a:br/>"
        "<a:r><a:rPr/><a:t>It runs.</a:t></a:r><a:endParaRPr/></a:p></p:sld>"}});
}

TEST_CASE("pptx: an identity translation keeps members, paragraph properties, bold run and break",
          "[documents]") {
  const std::string source = small_pptx();
  std::vector<std::string> warnings;
  const std::string out = documents::translate_pptx(source, "small.pptx", &warnings, identity);
  const documents::ZipPackage before(source, "in"), after(out, "out");
  CHECK(before.names() == after.names());
  CHECK(warnings.empty());
  CHECK(after.read("ppt/presentation.xml") == before.read("ppt/presentation.xml"));
  const std::string slide = after.read("ppt/slides/slide1.xml");
  CHECK(slide.find("<a:p><a:pPr algn=\"ctr\"/>") != std::string::npos);
  const size_t bold = slide.find("<a:rPr b=\"1\"/><a:t>");  // a space beside the word may join it
  REQUIRE(bold != std::string::npos);
  CHECK(slide.find("black</a:t>", bold) <= bold + 25);
  CHECK(slide.find("<a:br/><a:r><a:rPr/><a:t>It runs.</a:t>") !=
        std::string::npos);  // the break is the space
  CHECK(slide.find("<a:endParaRPr/></a:p>") != std::string::npos);
  CHECK(slide.find("xml:space") == std::string::npos);
}

TEST_CASE("docx: bytes that are not a package are an error naming the file", "[documents]") {
  CHECK_THROWS_WITH(documents::translate_docx("not a zip", "x.docx", nullptr, identity),
                    Catch::Contains("x.docx: not a zip package"));
}

TEST_CASE("office: a zip without the format's main member is an error, not a translation", "[documents]") {
  const std::string other = test::zip_of({{"hello.txt", "Hello."}, {"word/styles.xml", "<w:styles/>"}});
  CHECK_THROWS_WITH(documents::translate_docx(other, "x.docx", nullptr, identity),
                    Catch::Contains("x.docx: not a document of this format: the zip package has no "
                                    "word/document.xml"));
  CHECK_THROWS_WITH(documents::translate_odt(other, "x.odt", nullptr, identity),
                    Catch::Contains("content.xml"));
  CHECK_THROWS_WITH(documents::translate_pptx(other, "x.pptx", nullptr, identity),
                    Catch::Contains("ppt/presentation.xml"));
}

TEST_CASE("docx: a run holding w:lastRenderedPageBreak is translated, the element kept", "[documents]") {
  const std::string source = test::zip_of(
      {{"word/document.xml",
        "<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:rPr><w:b/></w:rPr><w:lastRenderedPageBreak/>"
        "<w:t>A dog runs.</w:t></w:r></w:p></w:body></w:document>"}});
  std::vector<std::string> warnings;
  const auto upper = [](std::vector<documents::Segment>& segments) {
    std::vector<documents::SegmentTranslation> out = identity(segments);
    for (documents::SegmentTranslation& t : out) {
      for (char& c : t.text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
  };
  const std::string out = documents::translate_docx(source, "page.docx", &warnings, upper);
  CHECK(warnings.empty());
  const std::string body = documents::ZipPackage(out, "out").read("word/document.xml");
  CHECK(body.find("<w:r><w:rPr><w:b/></w:rPr><w:lastRenderedPageBreak/><w:t xml:space=\"preserve\">A DOG "
                  "RUNS.</w:t></w:r>") != std::string::npos);
}
