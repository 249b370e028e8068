// Constructs of real documents that once came back wrong (tests/fixtures/documents/real-world/ has each in a
// whole document): footnote marks, text without letters, template tags glued to words, kbd in Markdown,
// GitHub alerts, the text before `</body>`, timing lines without blank lines, Latin-1 and UTF-16 files,
// DTD entities in office members.
#include <catch2/catch.hpp>

#include "document_test_support.h"
#include "documents/cue_timing.h"
#include "documents/dtd_entities.h"
#include "documents/html_reader.h"
#include "documents/letters.h"
#include "documents/markdown_reader.h"
#include "documents/markdown_syntax.h"
#include "documents/protected_spans.h"
#include "documents/text_encoding.h"

using documents::Document;
using test::texts;

TEST_CASE("letters: digits, dates, arrows and marks are no letters", "[documents]") {
  CHECK_FALSE(documents::has_letter("[1.2.0] - 2024-05-01"));
  CHECK_FALSE(documents::has_letter("\xE2\x86\xA9\xEF\xB8\x8E"));                // ↩︎
  CHECK_FALSE(documents::has_letter("\xC2\xB9 \xE2\x80\xA0 \xF0\x9F\x90\xB6"));  // ¹ † 🐶
  CHECK(documents::has_letter("1 dog"));
  CHECK(documents::has_letter("caf\xC3\xA9"));
  CHECK(documents::has_letter("\xE7\x8A\xAC"));  // 犬
  CHECK(documents::has_letter("\xFF"));          // invalid UTF-8 goes to the model
}

TEST_CASE("html: a footnote mark or back-link arrow is kept whole, off the model's text", "[documents]") {
  const std::string html =
      "<p>A man rides.<sup id=\"r1\"><a href=\"#n1\">1</a></sup></p>"
      "<p>A woman walks. <a href=\"#r1\">\xE2\x86\xA9</a></p><p>See <a href=\"#x\">[2]</a> now.</p>"
      "<p>A <a href=\"/d\">dog</a> has <sup>2</sup> legs.</p>";
  Document d = documents::read_html(html, documents::HtmlPass::kText, "t.html", nullptr);
  CHECK(texts(d) ==
        std::vector<std::string>{"A man rides.", "A woman walks.", "See now.", "A dog has legs."});
  REQUIRE(d.segments[0].insertions.size() == 1);
  CHECK(d.segments[0].insertions[0].bytes == "<sup id=\"r1\"><a href=\"#n1\">1</a></sup>");
  CHECK_FALSE(d.segments[0].insertions[0].spaced);
  CHECK(d.segments[1].insertions[0].spaced);
  CHECK(d.segments[3].elements.size() == 1);  // the link with a word stays an element
}

TEST_CASE("html: text before </body> keeps the end tags after it", "[documents]") {
  const std::string html = "<body>\n<p>A dog.</p>\nA man runs\n</body>\n</html>\n";
  Document d = documents::read_html(html, documents::HtmlPass::kText, "t.html", nullptr);
  const std::string out = d.assemble([&](int i) { return "<" + d.segments[i].text + ">"; });
  CHECK(out == "<body>\n<p><A dog.></p>\n<A man runs>\n</body>\n</html>\n");
}

TEST_CASE("html: a server template tag is written as written", "[documents]") {
  CHECK(documents::escape_html_text("a <%= x %> & <b>") == "a <%= x %> &amp; &lt;b&gt;");
  CHECK(documents::escape_xhtml_text("<%= x %>") == "&lt;%= x %&gt;");
}

TEST_CASE("protected spans: one glued to a word leaves the space beside it", "[documents]") {
  documents::Segment glued_after;
  glued_after.text = "A dog runs {% if x %}in the park.";
  documents::protect_spans(glued_after);
  CHECK(glued_after.text == "A dog runs in the park.");
  documents::Segment glued_before;
  glued_before.text = "Dogs{{n}} run.";
  documents::protect_spans(glued_before);
  CHECK(glued_before.text == "Dogs run.");
  documents::Segment between;
  between.text = "A {{x}} dog.";
  documents::protect_spans(between);
  CHECK(between.text == "A dog.");
  CHECK(between.insertions[0].spaced);
}

TEST_CASE("markdown: kbd and code in inline HTML are kept whole", "[documents]") {
  Document d =
      documents::read_markdown("Press <kbd>Ctrl</kbd> and run <code>make</code> now.\n", "t.md", nullptr);
  CHECK(texts(d) == std::vector<std::string>{"Press and run now."});
  REQUIRE(d.segments[0].insertions.size() == 2);
  CHECK(d.segments[0].insertions[0].bytes == "<kbd>Ctrl</kbd>");
}

TEST_CASE("markdown: a GitHub alert's marker line is kept", "[documents]") {
  CHECK(documents::alert_marker_length("> [!NOTE]\n> A dog.", 2) == 10);
  CHECK(documents::alert_marker_length("[!NOTE]\nA dog.", 0) == 0);   // not in a blockquote
  CHECK(documents::alert_marker_length("> [!NOTE] A dog.", 2) == 0);  // not alone on its line
  Document d = documents::read_markdown("> [!WARNING]\n> A man climbs.\n", "t.md", nullptr);
  CHECK(texts(d) == std::vector<std::string>{"A man climbs."});
  REQUIRE(d.segments[0].insertions.size() == 1);
  CHECK(d.segments[0].insertions[0].bytes == "[!WARNING]\n> ");
}

TEST_CASE("subtitles: a timing line needs times that parse in both dialects", "[documents]") {
  CHECK(documents::is_timing_line("00:00:01,000 --> 00:00:03,500"));
  CHECK(documents::is_timing_line("00:01.000 --> 00:03.500 align:start"));
  CHECK_FALSE(documents::is_timing_line("-->"));
  CHECK_FALSE(documents::is_timing_line("- - > -- > - -> -- <--"));
  long long start = 0, end = 0;
  REQUIRE(documents::parse_timing("01:00:10.000 --> 01:00:20.500 line:0", &start, &end));
  CHECK(start == 3610000);
  CHECK(end == 3620500);
  REQUIRE(documents::parse_timing("00:00:01,000 --> 00:00:03,500", &start, &end));
  CHECK(start == 1000);
  CHECK_FALSE(documents::parse_timing("00:00:01,0 --> 00:00:03,500", &start, &end));
  CHECK(start == 1000);
}

TEST_CASE("encodings: UTF-16 and Latin-1 text read as UTF-8 with a warning and UTF-8 as it is", "[documents]") {
  std::vector<std::string> warnings;
  CHECK_FALSE(documents::text_as_utf8("caf\xC3\xA9 \xEF\xBB\xBF", "a.srt", &warnings));
  CHECK(warnings.empty());
  CHECK(documents::text_as_utf8("caf\xE9 \x96 \x80", "a.srt", &warnings) ==
        std::string("caf\xC3\xA9 \xE2\x80\x93 \xE2\x82\xAC"));
  CHECK(warnings.back() == "a.srt: not UTF-8: read as Windows-1252 (Latin-1), written as UTF-8");
  CHECK(documents::text_as_utf8(std::string("\xFF\xFE"
                                            "A\0\xE9\0\n\0",
                                            8),
                                "b.md", &warnings) == std::string("A\xC3\xA9\n"));
  CHECK(warnings.back() == "b.md: not UTF-8: read as UTF-16LE, written as UTF-8");
  CHECK(documents::declare_utf8_charset("<meta charset=\"ISO-8859-1\"><p>x</p>") ==
        "<meta charset=\"utf-8\"><p>x</p>");
  CHECK(documents::declare_utf8_charset("<p>x</p>") == "<p>x</p>");
}

TEST_CASE("office: a DTD entity's reference is hidden from the reader and written back", "[documents]") {
  const std::string xml = "<!DOCTYPE d [<!ENTITY p \"Dog&amp;Co\">]><d>A &p; and &amp; &#38; &q;</d>";
  std::vector<std::string> entities;
  const std::string hidden = documents::hide_dtd_entities(xml, &entities);
  CHECK(entities == std::vector<std::string>{"&p;", "&q;"});
  CHECK(hidden.find("<!ENTITY p \"Dog&amp;Co\">") != std::string::npos);  // the doctype as it is
  CHECK(hidden.find("&p;") == std::string::npos);
  CHECK(hidden.find("&amp; &#38;") != std::string::npos);
  CHECK(documents::restore_dtd_entities(hidden, entities) == xml);
  CHECK(documents::hide_dtd_entities("<d>A &p;</d>", &entities) == "<d>A &p;</d>");  // no DTD: unchanged
  CHECK(entities.empty());
}
