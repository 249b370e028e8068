// An HTML page translated a chunk at a time reads exactly as it does whole: the same output bytes and the
// same warnings, whatever the chunk size, on pages with the markup that tempts a chunker to cut wrongly.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "documents/html_chunks.h"
#include "documents/html_reader.h"
#include "documents/translate_document.h"
#include "pipeline/translator.h"
#include "test_support.h"

namespace {

const pipeline::Translator& fixture_model() {
  static const pipeline::Translator translator(test::fixtures_dir() + "/paper/model");
  return translator;
}

struct Result {
  std::string text;
  std::vector<std::string> warnings;  // sorted: chunks interleave the attribute and text passes' warnings
  size_t pieces = 0;
};

Result translate(const std::string& page, size_t chunk_bytes) {
  Result result;
  pipeline::TranslateOptions options;
  documents::write_translated_document(
      fixture_model(), options, documents::DocumentFormat::kHtml, page, "page.html", &result.warnings,
      [&result](std::string_view piece) {
        result.text += piece;
        ++result.pieces;
      },
      chunk_bytes);
  std::sort(result.warnings.begin(), result.warnings.end());
  return result;
}

size_t count_chunks(const std::string& page, size_t chunk_bytes) {
  documents::HtmlChunker chunker(page, chunk_bytes);
  size_t n = 0;
  for (documents::HtmlChunk chunk; chunker.next(&chunk);) ++n;
  return n;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

const char* const kTricky[] = {
    // Blocks in containers, an unclosed <p> and <li> closed by the next one, a table without tbody.
    "<!DOCTYPE html>\n<html><body>\n<div class=\"a\"><p>A dog runs.</p>\n<p>A man <b>sits</b>.</p></div>\n"
    "<ul><li>A girl jumps.<li>A boy swims.</ul>\n<p>Two dogs.<p>A cat.\n<div><p>A bike.</p></div>\n"
    "<table>\n<tr><td>A red ball.</td><td>2</td></tr>\n<tr><td>A blue shirt.</td></tr>\n</table>\n"
    "<p>The end.</p></body></html>\n",
    // Text and inline runs around blocks, never-translated containers holding blocks.
    "<body>\nA man <i>walks</i> <p>A dog.</p> on the grass <b>now</b>\n<div translate=\"no\"><p>Kept.</p>"
    "<p>Kept too.</p></div>\n<div class=\"x notranslate\"><p>Kept.</p></div>\n<p>A woman.</p>\n"
    "<section><article><h2 title=\"A title\">A man.</h2><p>A <a href=\"https://e.com\">dog</a>.</p>"
    "</article></section>\n",
    // Scripts that hide markup, comments with tags, svg with self-closing children, CDATA, CRLF lines.
    "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"\r\n \"http://www.w3.org/TR/html4/strict.dtd\">\r\n"
    "<body><p>A dog.</p>\r\n<p>A man.</p>\r\n<!-- <p>not a block</p> -->\r\n<p>A cat.</p>"
    "<svg><rect/><![CDATA[ <p> ]]></svg>\r\n<p>A girl.</p>\r\n<p>A 7 men.</p>\r\n"
    "<script><!-- <script>x</script> --></script>\r\n<p>A man.</p>\r\n"
    "<div><p>A boy <b>runs</p></div>\r\n<p>Two men.</p>\r\n",
    // Misnested inline markup the parser repairs (a warning with its line), then plain blocks again.
    "<p>A man.</p>\n<p>A dog.</p>\n<div>\n<p>A <b>dog <i>runs</b> fast</i>.</p>\n</div>\n<div><p>A man "
    "sits.</p>\n<p>A 12 dogs.</p></div>\n"
    "<textarea><p>raw</p></textarea><p>A woman.</p>\n<title>x</title><p>A bike.</p>\n",
    // A byte-order mark before the doctype (gumbo then ignores the doctype: quirks mode), a table in a <p>.
    "\xEF\xBB\xBF<!DOCTYPE html>\n<div><p>A dog.</p>\n<p>A girl.</p>\n<p>A man<table><tr><td>A cat.</td></tr>"
    "</table> runs.</p>\n<p>A boy.</p></div>\n",
};

// A page's reading as one string: verbatim bytes as they are, each segment's text, markup and line
// between \x01 and \x02, so chunked and whole readings compare byte for byte.
std::string reading(const std::string& page, documents::HtmlPass pass, size_t chunk_bytes) {
  std::string out;
  std::vector<std::string> warnings;
  documents::HtmlChunker chunker(page, chunk_bytes);
  for (documents::HtmlChunk chunk; chunker.next(&chunk);) {
    const std::string source = chunk.context + page.substr(chunk.begin, chunk.end - chunk.begin);
    const documents::Document document = documents::read_html(source, pass, "f", &warnings, chunk.first_line);
    std::string text;
    for (const documents::Document::Part& part : document.parts) {
      if (part.segment < 0) {
        text += part.verbatim;
        continue;
      }
      const documents::Segment& segment = document.segments[part.segment];
      text += "\x01" + segment.text + "@" + std::to_string(segment.line);
      for (const documents::InlineElement& e : segment.elements)
        text += "|" + std::to_string(e.begin) + "-" + std::to_string(e.end) + e.open + e.close;
      for (const documents::Insertion& i : segment.insertions)
        text += "|" + std::to_string(i.at) + i.bytes + (i.spaced ? "s" : "");
      text += "\x02";
    }
    if (text.compare(0, chunk.context.size(), chunk.context) != 0) return "context not kept: " + text;
    out += text.substr(chunk.context.size());
  }
  for (const std::string& w : warnings) out += "\x03" + w;
  return out;
}

const char* const kTokens[] = {"<p>",
                               "</p>",
                               "<div>",
                               "</div>",
                               "<b>",
                               "</b>",
                               "<i>",
                               "</i>",
                               "<ul>",
                               "</ul>",
                               "<li>",
                               "</li>",
                               "<table>",
                               "</table>",
                               "<tbody>",
                               "</tbody>",
                               "<tr>",
                               "</tr>",
                               "<td>",
                               "</td>",
                               "<section>",
                               "</section>",
                               "<span>",
                               "</span>",
                               "<pre>",
                               "</pre>",
                               "<br>",
                               "<img alt=\"A dog\">",
                               "<script>var a;</script>",
                               "<script><!--",
                               "<!-- c -->",
                               "<!--",
                               "-->",
                               "<div translate=\"no\">",
                               "<p class=\"x notranslate\">",
                               "<svg>",
                               "</svg>",
                               "<rect/>",
                               "<![CDATA[x]]>",
                               "A dog runs. ",
                               "Two men ",
                               "\n",
                               "  ",
                               "&amp;",
                               "<",
                               ">",
                               "<h2 title=\"A title\">",
                               "</h2>",
                               "<!DOCTYPE html>",
                               "<html>",
                               "</html>",
                               "<body>",
                               "</body>",
                               "<textarea>",
                               "</textarea>",
                               "<a href=\"https://e.com\">",
                               "</a>",
                               "<code>",
                               "</code>",
                               "<p/>",
                               "<title>",
                               "</title>",
                               "\xEF\xBB\xBF",
                               "<dl>",
                               "<dt>",
                               "<dd>",
                               "</dl>",
                               "<template>",
                               "</template>",
                               "<head>",
                               "</head>",
                               "<form>",
                               "</form>",
                               "<select>",
                               "<option>",
                               "</select>",
                               "<math>",
                               "</math>",
                               "<plaintext>",
                               "<xmp>",
                               "</xmp>",
                               "<blockquote>",
                               "</blockquote>",
                               "</br>",
                               "\r\n",
                               "\r",
                               "<p ",
                               "=\"",
                               "<caption>",
                               "<col>",
                               "<colgroup>",
                               "<frameset>",
                               "<tt>",
                               "<nobr>",
                               "<a>",
                               "<foo-bar>",
                               "</foo-bar>",
                               "<?x?>",
                               "</ >",
                               "<!x>",
                               "<P>",
                               "</P>",
                               "<DIV>",
                               "</Div>",
                               "<hr>",
                               "<li>A girl.</li>"};

// Mostly well-nested markup, so many cuts fall, with a stray token now and then.
struct PageMaker {
  std::mt19937 random{32};
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); }

  std::string inline_content(int depth) {
    static const char* const kInline[] = {"b", "i", "a", "span", "code", "foo-bar", "em"};
    std::string out;
    for (int n = pick(4); n-- > 0;) {
      const int choice = pick(depth > 0 ? 5 : 3);
      if (choice == 0) out += "A dog runs. ";
      if (choice == 1) out += kTokens[pick(static_cast<int>(std::size(kTokens)))];
      if (choice == 2) out += pick(2) ? "<br>" : " two men\n";
      if (choice >= 3) {
        const std::string tag = kInline[pick(static_cast<int>(std::size(kInline)))];
        out += "<" + tag + ">" + inline_content(depth - 1) + "</" + tag + ">";
      }
    }
    return out;
  }

  std::string blocks(int depth) {
    static const char* const kContainers[] = {"div", "section", "blockquote", "div translate=\"no\"", "pre"};
    std::string out;
    for (int n = 1 + pick(4); n-- > 0;) {
      const int choice = pick(depth > 0 ? 7 : 4);
      if (choice == 0) out += "<p>" + inline_content(2) + (pick(4) ? "</p>" : "") + "\n";
      if (choice == 1) out += "<h2 title=\"A title\">" + inline_content(1) + "</h2>";
      if (choice == 2) out += inline_content(1);
      if (choice == 3)
        out += pick(3) ? "<!-- c -->\r\n" : kTokens[pick(static_cast<int>(std::size(kTokens)))];
      if (choice == 4) {
        out += "<ul>";
        for (int i = pick(3); i-- > 0;) out += "<li>" + inline_content(1) + (pick(3) ? "</li>" : "");
        out += "</ul>\n";
      }
      if (choice == 5) {
        out += "<table>" + std::string(pick(2) ? "<tbody>" : "");
        for (int i = pick(3); i-- > 0;) out += "\n<tr><td>" + inline_content(1) + "</td><td>2</td></tr>";
        out += pick(5) ? "</table>" : "A cat</table>";
      }
      if (choice == 6) {
        const std::string open = kContainers[pick(static_cast<int>(std::size(kContainers)))];
        out += "<" + open + ">" + blocks(depth - 1) + "</" + open.substr(0, open.find(' ')) + ">";
      }
    }
    return out;
  }

  std::string page() {
    std::string head = pick(2) ? "<!DOCTYPE html>\n" : pick(2) ? "\xEF\xBB\xBF<!doctype html>" : "";
    return head + (pick(2) ? "<html><body>" : "") + blocks(3) + (pick(2) ? "</body></html>\n" : "");
  }
};

}  // namespace

TEST_CASE("html chunks: generated pages read the same by chunks as whole", "[documents][html_chunks]") {
  PageMaker maker;
  size_t cuts = 0;
  for (int round = 0; round < 6000; ++round) {
    const std::string page = maker.page();
    INFO(page);
    cuts += count_chunks(page, 1) - 1;
    for (documents::HtmlPass pass : {documents::HtmlPass::kText, documents::HtmlPass::kAttributes}) {
      const std::string whole = reading(page, pass, page.size() + 1);
      REQUIRE(reading(page, pass, 1) == whole);
    }
  }
  CHECK(cuts > 3000);  // the pages do get cut
}

TEST_CASE("html chunks: random markup reads the same by chunks as whole", "[documents][html_chunks]") {
  std::mt19937 random(32);
  std::uniform_int_distribution<size_t> token(0, std::size(kTokens) - 1), length(1, 80);
  for (int round = 0; round < 4000; ++round) {
    std::string page;
    for (size_t n = length(random); n-- > 0;) page += kTokens[token(random)];
    INFO(page);
    for (documents::HtmlPass pass : {documents::HtmlPass::kText, documents::HtmlPass::kAttributes}) {
      const std::string whole = reading(page, pass, page.size() + 1);
      REQUIRE(reading(page, pass, 1) == whole);
    }
  }
}

TEST_CASE("html chunks: any chunk size translates a page as it does whole", "[documents][html_chunks]") {
  std::vector<std::string> pages(std::begin(kTricky), std::end(kTricky));
  pages.push_back(read_file(test::fixtures_dir() + "/documents/page.html"));
  pages.push_back(read_file(test::fixtures_dir() + "/documents/note.xhtml"));
  for (const std::string& page : pages) {
    INFO(page);
    const Result whole = translate(page, page.size() + 1);
    REQUIRE(whole.pieces == 1);
    for (size_t chunk_bytes : {size_t{1}, size_t{40}, size_t{200}}) {
      INFO("chunk bytes " << chunk_bytes);
      const Result chunked = translate(page, chunk_bytes);
      CHECK(chunked.text == whole.text);
      CHECK(chunked.warnings == whole.warnings);
    }
  }
}

TEST_CASE("html chunks: cuts between blocks in containers, none inside inline or kept markup",
          "[documents][html_chunks]") {
  // Each </p> in the <div> is a cut; nothing inside <b>, <pre> or a translate="no" div is.
  CHECK(count_chunks("<div><p>A.</p><p>B.</p><p>C.</p></div>", 1) == 4);
  CHECK(count_chunks("<p>A <b>x</b> y.</p>", 1) == 1);
  CHECK(count_chunks("<div translate=\"no\"><p>A.</p><p>B.</p></div><p>C.</p><p>D.</p>", 1) == 2);
  CHECK(count_chunks("<pre><p>A.</p></pre><p>B.</p><p>C.</p>", 1) == 2);
  // End tags the parser implies: an open <p> or <li> closed by the next block or the list's end.
  CHECK(count_chunks("<div><p>A.<p>B.</div><ul><li>C.<li>D.</ul><p>E.</p>", 1) == 3);
  // After markup the tokenizer does not follow (a </div> closing a <b>), the rest is one chunk.
  CHECK(count_chunks("<p>A.</p><div><b>B.</div><p>C.</p><p>D.</p>", 1) == 2);
  // The next chunk's context reopens the containers the cut is inside, after the page's doctype.
  documents::HtmlChunker chunker("<!doctype html>\n<body><section><ul><li>A.</li><li>B.</li></ul>", 1);
  documents::HtmlChunk chunk;
  REQUIRE(chunker.next(&chunk));
  CHECK(chunk.context.empty());
  REQUIRE(chunker.next(&chunk));
  CHECK(chunk.context == "<!doctype html><html><body><section><ul>");
  CHECK(chunk.first_line == 2);
}
