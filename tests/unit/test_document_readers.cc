// Document readers without a model: what becomes a segment, what stays verbatim, and an identity
// "translation" that gives the source back.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "document_test_support.h"
#include "documents/html_reader.h"
#include "documents/markdown_reader.h"
#include "documents/projection.h"
#include "documents/protected_spans.h"
#include "documents/subtitles.h"

using documents::Document;
using test::identity;
using test::render_identity;
using test::render_identity_attributes;
using test::texts;

TEST_CASE("html reader: blocks are segments, inline markup their elements", "[documents]") {
  const std::string html =
      "<p>A <b>black</b>\n dog &amp; a cat.</p><script>var x = 1;</script>"
      "<ul><li>One <code>x()</code> two</li></ul><p translate=\"no\">Kept.</p>";
  Document d = documents::read_html(html, documents::HtmlPass::kText, "t.html", nullptr);
  CHECK(texts(d) == std::vector<std::string>{"A black dog & a cat.", "One two"});
  REQUIRE(d.segments[0].elements.size() == 1);
  CHECK(d.segments[0].elements[0].open == "<b>");
  CHECK(d.segments[0].elements[0].close == "</b>");
  CHECK(d.segments[1].insertions.at(0).bytes == "<code>x()</code>");
  CHECK(render_identity(d, documents::escape_html_text) ==
        "<p>A <b>black</b> dog &amp; a cat.</p><script>var x = 1;</script>"
        "<ul><li>One <code>x()</code> two</li></ul><p translate=\"no\">Kept.</p>");
}

TEST_CASE("html reader: translated attributes only", "[documents]") {
  const std::string html = "<img src=\"a dog.jpg\" alt=\"A dog\"><a title='A \"cat\"' href=x>x</a>";
  Document d = documents::read_html(html, documents::HtmlPass::kAttributes, "t.html", nullptr);
  CHECK(texts(d) == std::vector<std::string>{"A dog", "A \"cat\""});
  CHECK(render_identity_attributes(d) == html);
}

TEST_CASE("html reader: an attribute value is escaped for its own quote", "[documents]") {
  // The value holds the quote around it as a character reference: written back bare, it would end the
  // value and open an onerror attribute.
  const std::string html =
      "<img src=x alt='... /a&#39;onerror=alert(1)//x'><a title=\"a 'b' &quot;c&quot;\">x</a>";
  Document d = documents::read_html(html, documents::HtmlPass::kAttributes, "t.html", nullptr);
  CHECK(texts(d) == std::vector<std::string>{"... /a'onerror=alert(1)//x", "a 'b' \"c\""});
  CHECK(render_identity_attributes(d) ==
        "<img src=x alt='... /a&#39;onerror=alert(1)//x'><a title=\"a 'b' &quot;c&quot;\">x</a>");
}

TEST_CASE("html reader: repaired markup stays untranslated with a warning", "[documents]") {
  const std::string html = "<p>fine</p>\n<p>A <b>bold <i>both</b> italic</i> end.</p>";
  std::vector<std::string> warnings;
  Document d = documents::read_html(html, documents::HtmlPass::kText, "t.html", &warnings);
  CHECK(texts(d) == std::vector<std::string>{"fine"});
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].rfind("t.html:2: ", 0) == 0);
  CHECK(render_identity(d, documents::escape_html_text) == html);
}

TEST_CASE("markdown reader: markers, code and link destinations stay", "[documents]") {
  const std::string md =
      "---\ntitle: x\n---\n# A title\n\nA **bold** [link](https://x.org \"t\") and `code` here.\n\n"
      "- one *item*\n\n```\ncode block\n```\n\n| a | b |\n|---|---|\n| c | d |\n";
  Document d = documents::read_markdown(md, "t.md", nullptr);
  CHECK(texts(d) ==
        std::vector<std::string>{"A title", "A bold link and here.", "one item", "a", "b", "c", "d"});
  CHECK(render_identity(d, [](std::string_view t) { return std::string(t); }) == md);
}

TEST_CASE("markdown reader: shortcut and collapsed references keep the label they name", "[documents]") {
  const std::string md =
      "See [the spec] for details, ![logo][] here and [the guide][guide] there.\n\n"
      "[the spec]: https://x.org/spec\n[logo]: logo.png\n[guide]: https://x.org/guide\n";
  Document d = documents::read_markdown(md, "t.md", nullptr);
  CHECK(texts(d) == std::vector<std::string>{"See for details, here and the guide there."});
  REQUIRE(d.segments[0].insertions.size() == 2);
  CHECK(d.segments[0].insertions[0].bytes == "[the spec]");
  CHECK(d.segments[0].insertions[1].bytes == "![logo][]");
  CHECK(d.segments[0].elements.at(0).close == "][guide]");
  CHECK(render_identity(d, [](std::string_view t) { return std::string(t); }) == md);
}

TEST_CASE("protected spans: URLs, addresses and placeholders leave the text", "[documents]") {
  documents::Segment s;
  s.text = "Mail a@b.org or see https://x.org/a, then {name} gets %1$s.";
  documents::protect_spans(s);
  CHECK(s.text == "Mail or see, then gets.");
  REQUIRE(s.insertions.size() == 4);
  CHECK(s.insertions[0].bytes == "a@b.org");
  CHECK(s.insertions[1].bytes == "https://x.org/a");
  CHECK(s.insertions[2].bytes == "{name}");
  CHECK(s.insertions[3].bytes == "%1$s");
  const documents::SegmentTranslation t = identity(s);
  CHECK(documents::project_markup(s, t.text, t.links, [](std::string_view x) { return std::string(x); }) ==
        "Mail a@b.org or see https://x.org/a, then {name} gets %1$s.");
}

TEST_CASE("protected spans: template tags are placeholders", "[documents]") {
  documents::Segment s;
  s.text = "Hello {% if user %} dear {{ name }} {% endif %}, you owe <%= total %> now.";
  documents::protect_spans(s);
  CHECK(s.text == "Hello dear, you owe now.");
  REQUIRE(s.insertions.size() == 4);
  CHECK(s.insertions[0].bytes == "{% if user %}");
  CHECK(s.insertions[1].bytes == "{{ name }}");
  CHECK(s.insertions[2].bytes == "{% endif %}");
  CHECK(s.insertions[3].bytes == "<%= total %>");
}

TEST_CASE("protected spans: a link whose text is its URL keeps it inside", "[documents]") {
  const std::string html =
      "<p>Shop at <a href=\"https://x/shop\">https://x/shop</a> or mail "
      "<a href=\"mailto:a@b.org\"><b>a@b.org</b></a> now.</p>";
  Document d = documents::read_html(html, documents::HtmlPass::kText, "t.html", nullptr);
  documents::protect_spans(d.segments.at(0));
  CHECK(d.segments[0].text == "Shop at or mail now.");
  CHECK(d.segments[0].elements.empty());
  REQUIRE(d.segments[0].insertions.size() == 2);
  CHECK(d.segments[0].insertions[0].bytes == "<a href=\"https://x/shop\">https://x/shop</a>");
  CHECK(d.segments[0].insertions[1].bytes == "<a href=\"mailto:a@b.org\"><b>a@b.org</b></a>");
  CHECK(render_identity(d, documents::escape_html_text) == html);
}

TEST_CASE("subtitles: an identity translation gives the file back", "[documents]") {
  const std::string srt =
      "1\r\n00:00:01,000 --> 00:00:02,000\r\nA man <i>rides</i>\r\n\r\n2\r\n00:00:02,500 --> 00:00:04,000\r\n"
      "a bike.\r\n\r\n3\r\n00:00:05,000 --> 00:00:06,000\r\nA dog runs.\r\n";
  const auto translate = [](std::vector<documents::Segment>& segments) {
    std::vector<documents::SegmentTranslation> out;
    for (const documents::Segment& s : segments) out.push_back(identity(s));
    return out;
  };
  CHECK(documents::translate_subtitles(srt, "t.srt", nullptr, translate, false) == srt);
}

TEST_CASE("subtitles: cue text wraps at the width", "[documents]") {
  CHECK(documents::wrap_cue("one two three", 7) == std::vector<std::string>{"one two", "three"});
  CHECK(documents::wrap_cue("<i>one</i> two", 7) == std::vector<std::string>{"<i>one</i> two"});
}

TEST_CASE("html reader: NUL bytes where gumbo makes up text keep the page whole", "[documents]") {
  std::ifstream in(std::string(NMT_TEST_FIXTURES) + "/documents/nul_in_doctype.bin", std::ios::binary);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  REQUIRE(html.find('\0') != std::string::npos);
  Document d = documents::read_html(html, documents::HtmlPass::kText, "t.html", nullptr);
  CHECK(render_identity(d, documents::escape_html_text).size() > 0);
}

TEST_CASE("markdown reader: tables as GitHub reads them, one dash a cell", "[documents]") {
  // What cmark-gfm -e table reads: each a table but the last two (code, and a row count mismatch).
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"|hi|\n|--|\n|lo|\n", {"hi", "lo"}},
      {"a|b\n-|-\nc|d\n", {"a", "b", "c", "d"}},
      {"| a | b |\n|:-| -: |\n| c | d |\n", {"a", "b", "c", "d"}},
      {"Text\n\n```\n|a|\n|-|\n```\n", {"Text"}},
      {"|a|b|\n|-|\n", {"|a|b| |-|"}},
  };
  for (const auto& [md, segments] : cases) {
    Document d = documents::read_markdown(md, "t.md", nullptr);
    CHECK(texts(d) == segments);
    if (segments.size() > 1)
      CHECK(render_identity(d, [](std::string_view t) { return std::string(t); }) == md);
  }
}

TEST_CASE("markdown reader: inline HTML tags pair into elements, a comment over lines is one piece",
          "[documents]") {
  const std::string md =
      "A <b>dog</b> runs <!-- a\ncomment --> in <a href=\"/x\"><img src=\"i.png\"></a> the park.</i>\n";
  Document d = documents::read_markdown(md, "t.md", nullptr);
  REQUIRE(d.segments.size() == 1);
  const documents::Segment& s = d.segments[0];
  CHECK(s.text == "A dog runs in the park.");
  REQUIRE(s.elements.size() == 1);
  CHECK(s.elements[0].open == "<b>");
  CHECK(s.elements[0].close == "</b>");
  CHECK(s.text.substr(s.elements[0].begin, s.elements[0].end - s.elements[0].begin) == "dog");
  REQUIRE(s.insertions.size() == 3);
  CHECK(s.insertions[0].bytes == "<!-- a\ncomment -->");
  CHECK(s.insertions[0].spaced);
  CHECK(s.insertions[1].bytes == "<a href=\"/x\"><img src=\"i.png\"></a>");
  CHECK(s.insertions[2].bytes == "</i>");  // a close tag with nothing open stays as it is
  CHECK(render_identity(d, [](std::string_view t) { return std::string(t); }) ==
        "A <b>dog</b> runs <!-- a\ncomment --> in <a href=\"/x\"><img src=\"i.png\"></a> the park.</i>\n");
}
