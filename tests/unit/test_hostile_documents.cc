// Documents built to break a reader: trees nested far past documents::kMaxNestingDepth (each reader once
// recursed per level and died of a stack overflow) and zip packages that inflate past their budget. Each
// is refused, or kept as it is, with one line naming the file; none ends the process.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "document_test_support.h"
#include "documents/docx.h"
#include "documents/epub.h"
#include "documents/html_reader.h"
#include "documents/markdown_writer.h"
#include "documents/nesting.h"
#include "documents/odt.h"
#include "documents/protected_spans.h"
#include "documents/xml_reader.h"
#include "documents/zip_package.h"

namespace {

constexpr size_t kDeep = 50000;  // levels: far past the bound, and past what the stack held recursed

std::string repeat(const std::string& text, size_t n) {
  std::string out;
  out.reserve(text.size() * n);
  for (size_t i = 0; i < n; ++i) out += text;
  return out;
}

std::string nested(const std::string& open, const std::string& close, size_t depth,
                   const std::string& inner) {
  return repeat(open, depth) + inner + repeat(close, depth);
}

std::vector<documents::SegmentTranslation> identity(std::vector<documents::Segment>& segments) {
  std::vector<documents::SegmentTranslation> out;
  for (const documents::Segment& s : segments) out.push_back(test::identity(s));
  return out;
}

const std::string kDeepMessage = "elements nested deeper than 1000 levels";

}  // namespace

TEST_CASE("hostile html: nesting past the bound is refused naming file and line", "[documents][hostile]") {
  const std::string deep = "<p>x</p>\n<p>" + nested("<span>", "</span>", kDeep, "A dog runs.") + "</p>";
  for (documents::HtmlPass pass : {documents::HtmlPass::kText, documents::HtmlPass::kAttributes}) {
    CHECK_THROWS_MATCHES(documents::read_html(deep, pass, "t.html", nullptr), documents::TooDeep,
                         Catch::Message("t.html:2: " + kDeepMessage));
  }
  // Within the bound the page reads as any other (html, body and p take three levels).
  const std::string fine =
      "<p>" + nested("<span>", "</span>", documents::kMaxNestingDepth - 3, "A dog runs.") + "</p>";
  const documents::Document d = documents::read_html(fine, documents::HtmlPass::kText, "t.html", nullptr);
  CHECK(test::texts(d) == std::vector<std::string>{"A dog runs."});
}

TEST_CASE("hostile html: deep blocks of divs are refused too", "[documents][hostile]") {
  const std::string deep = nested("<div>", "</div>", 25000, "<p>A dog runs.</p>");
  CHECK_THROWS_AS(documents::read_html(deep, documents::HtmlPass::kText, "t.html", nullptr),
                  documents::TooDeep);
}

TEST_CASE("hostile xml: nesting past the bound is refused naming file and line", "[documents][hostile]") {
  const std::string deep = "<a>\n" + nested("<b>", "</b>", kDeep, "A dog runs.") + "</a>";
  CHECK_THROWS_MATCHES(documents::read_xml(deep, "t.xml"), documents::TooDeep,
                       Catch::Message("t.xml:2: " + kDeepMessage));
}

TEST_CASE("hostile markdown: deep quotes, lists and HTML blocks read without a crash",
          "[documents][hostile]") {
  std::vector<std::string> warnings;
  const auto same = [](std::vector<documents::Segment>& segments) { return identity(segments); };
  const std::string quotes = repeat("> ", 37500) + "A dog runs.\n";
  CHECK(documents::translate_markdown(quotes, "q.md", &warnings, same) == quotes);
  const std::string lists = repeat("- ", 37500) + "A dog runs.\n";
  CHECK(documents::translate_markdown(lists, "l.md", &warnings, same) == lists);
  const std::string block = "<div>\n" + nested("<span>", "</span>", kDeep, "A dog.") + "\n</div>\n\nA cat.\n";
  warnings.clear();
  CHECK(documents::translate_markdown(block, "h.md", &warnings, same) == block);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "h.md:2: " + kDeepMessage + "; kept as it is");
}

TEST_CASE("hostile text: a 40 kB run without a space stays text, URLs beside it are protected",
          "[documents][hostile]") {
  documents::Segment segment;
  const std::string run = "https://example.org/" + repeat("a", 40000);
  segment.text = "See " + run + " or https://x.org now.";
  documents::protect_spans(segment);
  CHECK(segment.text == "See " + run + " or now.");
  REQUIRE(segment.insertions.size() == 1);
  CHECK(segment.insertions[0].bytes == "https://x.org");
}

TEST_CASE("hostile docx and odt: a member nested past the bound is kept as it is", "[documents][hostile]") {
  const std::string body = "<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>A cat.</w:t></w:r></w:p>" +
                           nested("<w:sdt><w:sdtContent>", "</w:sdtContent></w:sdt>", kDeep,
                                  "<w:p><w:r><w:t>A dog runs.</w:t></w:r></w:p>") +
                           "</w:body></w:document>";
  std::vector<std::string> warnings;
  const std::string docx = test::zip_of({{"word/document.xml", body}});
  const std::string out = documents::translate_docx(docx, "d.docx", &warnings, identity);
  CHECK(documents::ZipPackage(out, "out").read("word/document.xml") == body);
  CHECK(warnings ==
        std::vector<std::string>{"d.docx:word/document.xml:1: " + kDeepMessage + "; kept as it is"});

  const std::string content = "<office:document-content xmlns:office=\"o\" xmlns:text=\"t\"><text:p>" +
                              nested("<text:span>", "</text:span>", kDeep, "A dog runs.") +
                              "</text:p></office:document-content>";
  warnings.clear();
  const std::string odt =
      test::zip_of({{"mimetype", "application/vnd.oasis.opendocument.text"}, {"content.xml", content}});
  documents::translate_odt(odt, "d.odt", &warnings, identity);
  CHECK(warnings == std::vector<std::string>{"d.odt:content.xml:1: " + kDeepMessage + "; kept as it is"});
}

TEST_CASE("hostile zip: members are read within the package's budget", "[documents][hostile]") {
  const std::string big(400 * 1024, 'x');
  const std::string package = test::zip_of({{"a", big}, {"b", big}, {"c", big}});
  const documents::ZipPackage zip(package, "p.docx", 1 << 20);
  CHECK(zip.read("a") == big);
  CHECK(zip.read("b") == big);
  // The third would pass the 1 MiB the package may inflate to: refused by its declared size.
  CHECK_THROWS_WITH(zip.read("c"),
                    "p.docx: c: declares 409600 bytes inflated, more than the 229376 bytes "
                    "this package may still inflate to");
  // The document readers get the budget too.
  const std::string docx =
      test::zip_of({{"word/document.xml", "<w:document xmlns:w=\"w\"><w:body>" +
                                              repeat("<w:p><w:r><w:t>A dog runs.</w:t></w:r></w:p>", 40000) +
                                              "</w:body></w:document>"}});
  CHECK_THROWS_WITH(
      documents::translate_docx(docx, "d.docx", nullptr, identity, 1 << 20),
      Catch::StartsWith("d.docx: word/document.xml: declares 1.7 MiB inflated, more than the 1.0 MiB"));
}

TEST_CASE("hostile zip: more members than a package may hold are refused", "[documents][hostile]") {
  std::vector<std::pair<std::string, std::string>> members;
  for (size_t i = 0; i <= documents::kMaxPackageMembers; ++i)
    members.emplace_back("m" + std::to_string(i), "");
  CHECK_THROWS_WITH(documents::ZipPackage(test::zip_of(members), "many.docx"),
                    "many.docx: 20001 members, more than the 20000 a package may hold");
}
