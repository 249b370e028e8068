// The XML reader without a model (segments, kept bytes, xml:space, malformed input) and the format table
// the command line, directory mode and the docs derive from.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "document_test_support.h"
#include "documents/document_format.h"
#include "documents/projection.h"
#include "documents/protected_spans.h"
#include "documents/xml_reader.h"
#include "pipeline/option_table.h"
#include "test_support.h"

using documents::Document;
using test::identity;
using test::render_identity;
using test::texts;

TEST_CASE("xml reader: elements with text are segments, their children inline", "[documents]") {
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<!-- c -->\n<doc a=\"x &amp; y\">\n  <t>A <b k='>'>black</b> dog &amp; a "
      "cat.</t>\n  <t translate=\"no\">Kept.</t>\n  <u><![CDATA[raw <x>]]></u><?pi data?>\n"
      "  <t>Run <c its:translate=\"no\">ls</c> now.<br/> Then &ent; stop.</t>\n</doc>\n";
  Document d = documents::read_xml(xml, "t.xml");
  CHECK(texts(d) == std::vector<std::string>{"A black dog & a cat.", "Run now. Then stop."});
  REQUIRE(d.segments[0].elements.size() == 1);
  CHECK(d.segments[0].elements[0].open == "<b k='>'>");
  CHECK(d.segments[0].elements[0].close == "</b>");
  REQUIRE(d.segments[1].insertions.size() == 3);
  CHECK(d.segments[1].insertions[0].bytes == "<c its:translate=\"no\">ls</c>");
  CHECK(d.segments[1].insertions[1].bytes == "<br/>");
  CHECK(d.segments[1].insertions[2].bytes == "&ent;");
  CHECK(d.segments[1].line == 7);
  // A kept element after the last word keeps the space before it.
  Document last = documents::read_xml("<t>A dog. <c translate=\"no\">x</c><!-- c --></t>", "t.xml");
  CHECK(render_identity(last, documents::escape_xml_text) ==
        "<t>A dog. <c translate=\"no\">x</c><!-- c --></t>");
  // An empty element ends a word, as HTML's <br> does.
  CHECK(texts(documents::read_xml("<t>One.<br/>Two.</t>", "t.xml")) == std::vector<std::string>{"One. Two."});
  // Spliced back untranslated, the document is its source byte for byte.
  CHECK(render_identity(d, documents::escape_xml_text) == xml);
}

TEST_CASE("xml reader: xml:space=preserve keeps whitespace runs between segments", "[documents]") {
  const std::string xml = "<poem xml:space=\"preserve\">One line.\n  Two lines.</poem>";
  Document d = documents::read_xml(xml, "p.xml");
  CHECK(texts(d) == std::vector<std::string>{"One line.", "Two lines."});
  CHECK(render_identity(d, documents::escape_xml_text) == xml);
  Document collapsed = documents::read_xml("<p>One line.\n  Two lines.</p>", "p.xml");
  CHECK(texts(collapsed) == std::vector<std::string>{"One line. Two lines."});
}

TEST_CASE("xml reader: a protected URL comes back spelled as XML", "[documents]") {
  Document d = documents::read_xml("<a>See https://x.com/?a=1&amp;b=2 now.</a>", "u.xml");
  REQUIRE(d.segments.size() == 1);
  documents::protect_spans(d.segments[0], documents::escape_xml_text);
  REQUIRE(d.segments[0].insertions.size() == 1);
  CHECK(d.segments[0].insertions[0].bytes == "https://x.com/?a=1&amp;b=2");
}

TEST_CASE("xml reader: malformed XML names the file, line and column", "[documents]") {
  try {
    documents::read_xml("<a>\n<b>x</a>", "bad.xml");
    FAIL("no error");
  } catch (const documents::MalformedXml& e) {
    CHECK(std::string(e.what()).rfind("bad.xml:2:", 0) == 0);
    CHECK(std::string(e.what()).find("malformed XML") != std::string::npos);
  }
  CHECK_THROWS_AS(documents::read_xml("", "empty.xml"), documents::MalformedXml);
  // What pugixml alone lets through and a strict parser refuses.
  for (const char* bad : {"just text", "<a>x & y</a>", "<a x='1' x='2'/>", "<a/><b/>", "hi<a/>", "<a/>hi",
                          "<a>x]]>y</a>", "<a x='&'/>"}) {
    CHECK_THROWS_AS(documents::read_xml(bad, "t.xml"), documents::MalformedXml);
  }
  CHECK_NOTHROW(documents::read_xml("\xEF\xBB\xBF <a>&#x41;&#65;&e.x;</a>\n", "t.xml"));
}

TEST_CASE("xml reader: every truncation of the fixture is read or refused, never a crash", "[documents]") {
  std::ifstream in(test::fixtures_dir() + "/documents/catalog.xml", std::ios::binary);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(xml.size() > 100);
  int refused = 0;
  for (size_t n = 0; n <= xml.size(); ++n) {
    try {
      Document d = documents::read_xml(xml.substr(0, n), "c.xml");
      render_identity(d, documents::escape_xml_text);
    } catch (const documents::MalformedXml&) {
      ++refused;
    }
  }
  CHECK(refused > 0);
}

TEST_CASE("format table: names, extensions and errors come from one table", "[documents]") {
  using documents::DocumentFormat;
  CHECK(documents::format_names().back() == "auto");
  CHECK(documents::format_from_name("xml") == DocumentFormat::kXml);
  CHECK(documents::format_from_name("epub") == DocumentFormat::kEpub);
  CHECK(documents::format_for_path("a/Book.EPUB") == DocumentFormat::kEpub);
  CHECK(documents::format_for_path("feed.xml") == DocumentFormat::kXml);
  CHECK(documents::format_for_path("page.xhtml") == DocumentFormat::kHtml);
  CHECK(documents::format_for_path("notes.txt") == DocumentFormat::kText);
  CHECK(documents::is_zip_package(DocumentFormat::kEpub));
  CHECK_FALSE(documents::is_zip_package(DocumentFormat::kXml));
  // The --format help and the bash completion name the table's formats, in its order.
  std::string help_list, completion_list = "auto";
  for (const documents::FormatRow& row : documents::format_table()) {
    CHECK(documents::format_from_name(row.name) == row.format);
    help_list += (help_list.empty() ? "" : ", ") + row.name;
    completion_list += " " + row.name;
    CHECK_THROWS_WITH(documents::format_from_name("nope"), Catch::Contains(row.name));
  }
  CHECK_THAT(std::string(pipeline::option_spec("format").help),
             Catch::Contains("one of " + help_list + " ("));
  const std::string completion =
      test::read_file(test::fixtures_dir() + "/../../packaging/nmt.bash-completion");
  CHECK_THAT(completion, Catch::Contains("compgen -W \"" + completion_list + "\""));
}
