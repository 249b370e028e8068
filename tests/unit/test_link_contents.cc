// A link (or any inline element) whose content is an image, code or a URL keeps it inside, whatever the
// translation does with the words around it; a badge comes back byte for byte.
#include <catch2/catch.hpp>

#include "document_test_support.h"
#include "documents/html_reader.h"
#include "documents/markdown_reader.h"
#include "documents/projection.h"
#include "documents/protected_spans.h"
#include "documents/xml_reader.h"

using documents::Document;
using test::texts;

namespace {

// Every segment "translated" with its words in reverse order, each aligned to its source word, so nothing
// stays where the source had it.
std::string render_reversed(Document& document, const documents::TextEscape& escape) {
  for (documents::Segment& segment : document.segments) documents::protect_spans(segment, escape);
  return document.assemble([&](int index) {
    const documents::Segment& segment = document.segments[index];
    std::vector<std::string> words;
    for (size_t at = 0; at < segment.text.size();) {
      const size_t end = std::min(segment.text.find(' ', at), segment.text.size());
      if (end > at) words.push_back(segment.text.substr(at, end - at));
      at = end + 1;
    }
    std::string target;
    std::vector<documents::WordLink> links;
    for (size_t i = words.size(); i-- > 0;) {
      if (!target.empty()) target += ' ';
      target += words[i];
      links.push_back({static_cast<int>(i), static_cast<int>(words.size() - 1 - i)});
    }
    return documents::project_markup(segment, target, links, escape);
  });
}

std::string plain(std::string_view text) { return std::string(text); }

}  // namespace

TEST_CASE("html: a link around an image or code keeps it inside", "[documents]") {
  const std::string html =
      "<p>See <a href=\"/ci\"><img src=\"ci.svg\" alt=\"CI\"></a> status.</p>"
      "<p>Run <a href=\"/d\"><code>make</code></a> first.</p>"
      "<p>Visit <a href=\"https://x/shop\">https://x/shop</a> now.</p>";
  Document d = documents::read_html(html, documents::HtmlPass::kText, "t.html", nullptr);
  CHECK(texts(d) == std::vector<std::string>{"See status.", "Run first.", "Visit https://x/shop now."});
  const std::string out = render_reversed(d, documents::escape_html_text);
  CHECK(out.find("<a href=\"/ci\"><img src=\"ci.svg\" alt=\"CI\"></a>") != std::string::npos);
  CHECK(out.find("<a href=\"/d\"><code>make</code></a>") != std::string::npos);
  CHECK(out.find("<a href=\"https://x/shop\">https://x/shop</a>") != std::string::npos);
}

TEST_CASE("html: an element holding text keeps its own content", "[documents]") {
  const std::string html = "<p>A <a href=\"/x\"><img src=\"i.png\"> big dog</a> runs.</p>";
  Document d = documents::read_html(html, documents::HtmlPass::kText, "t.html", nullptr);
  REQUIRE(d.segments.size() == 1);
  CHECK(d.segments[0].elements.size() == 1);
  CHECK(d.segments[0].insertions.size() == 1);
}

TEST_CASE("xml: an element around an empty element only moves as one", "[documents]") {
  const std::string xml = "<doc><p>See <link ref=\"a\"><icon/></link> here.</p></doc>";
  Document d = documents::read_xml(xml, "t.xml");
  REQUIRE(d.segments.size() == 1);
  CHECK(d.segments[0].elements.empty());
  const std::string out = render_reversed(d, documents::escape_xml_text);
  CHECK(out.find("<link ref=\"a\"><icon/></link>") != std::string::npos);
}

TEST_CASE("markdown: badges come back byte for byte", "[documents]") {
  const std::string badges =
      "[![CI](https://e.com/ci.svg)](https://e.com/ci) [![X](https://e.com/b.svg)](https://e.com/b)\n\n"
      "A dog [![CI](https://e.com/ci.svg)](https://e.com/ci) runs.\n";
  Document d = documents::read_markdown(badges, "t.md", nullptr);
  const std::string out = render_reversed(d, plain);
  CHECK(out.find(
            "[![CI](https://e.com/ci.svg)](https://e.com/ci) [![X](https://e.com/b.svg)](https://e.com/b)") !=
        std::string::npos);
  CHECK(out.find("runs. dog [![CI](https://e.com/ci.svg)](https://e.com/ci) A") != std::string::npos);
}

TEST_CASE("markdown: an image's alt text inside a link with words stays translatable", "[documents]") {
  Document d =
      documents::read_markdown("See [the ![logo](l.png) page](https://x.org) now.\n", "t.md", nullptr);
  REQUIRE(d.segments.size() == 1);
  CHECK(d.segments[0].text.find("logo") != std::string::npos);
}
