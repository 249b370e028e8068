// Markdown written back without a model: wrapped paragraphs wrapped again at the source's width with its
// prefixes, breaks kept off markup and block starts, model text escaped, HTML blocks through the HTML reader.
#include <catch2/catch.hpp>
#include <sstream>

#include "documents/markdown_writer.h"

namespace {

int word_count(const std::string& text) {
  std::istringstream in(text);
  int n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

// Each segment "translated" by `rewrite` (its text by default), target word t aligned to source word t.
documents::SegmentTranslator translator(std::function<std::string(const std::string&)> rewrite = nullptr) {
  return [rewrite](std::vector<documents::Segment>& segments) {
    std::vector<documents::SegmentTranslation> out;
    for (const documents::Segment& s : segments) {
      documents::SegmentTranslation t;
      t.text = rewrite ? rewrite(s.text) : s.text;
      const int n_source = word_count(s.text), n_target = word_count(t.text);
      for (int w = 0; w < n_target && n_source > 0; ++w) t.links.push_back({std::min(w, n_source - 1), w});
      out.push_back(std::move(t));
    }
    return out;
  };
}

std::string translate(const std::string& md, documents::SegmentTranslator t = translator()) {
  return documents::translate_markdown(md, "t.md", nullptr, t);
}

}  // namespace

TEST_CASE("markdown writer: wrapped paragraphs keep their lines and prefixes", "[documents]") {
  const std::string md =
      "A black dog is running\non the green grass.\n\n"
      "- A girl in a **red** dress\n  is jumping over a rope.\n\n"
      "> A man is sitting on a\n> bench in the sun.\n>\n> 1. Two boys are playing\n>    in the water.\n\n"
      "One line stays one line, however long it is.\n\n"
      "A hard  \nbreak and\\\nanother.\r\n\r\nCRLF lines are\r\nkept alike.\r\n";
  CHECK(translate(md) == md);
}

TEST_CASE("markdown writer: a longer translation fills lines at the source's width", "[documents]") {
  const std::string md = "> aaa bbb\n> ccc ddd\n";
  const std::string out =
      translate(md, translator([](const std::string&) { return "aaaa bbbb cccc dddd eeee"; }));
  CHECK(out == "> aaaa\n> bbbb\n> cccc\n> dddd\n> eeee\n");
}

TEST_CASE("markdown writer: no line starts a block, links and code stay on one line", "[documents]") {
  const std::string md = "aa bb\ncc dd\n";
  CHECK(translate(md, translator([](const std::string&) { return "aa - bb # cc 1. dd + ee > ff"; })) ==
        "aa -\nbb #\ncc 1.\ndd +\nee >\nff\n");
  CHECK(translate(md, translator([](const std::string&) { return "aa bb - cc"; })) == "aa bb -\ncc\n");
  CHECK(translate(md, translator([](const std::string&) { return "# aa bb"; })) == "\\# aa\nbb\n");
  CHECK(translate(md, translator([](const std::string&) { return "12. aa bb"; })) == "12\\.\naa bb\n");
  // An element around code alone is kept whole with it.
  CHECK(translate("- **`--a b`** c d.\n- See [`x y`](https://x.org) and more.\n") ==
        "- **`--a b`** c d.\n- See [`x y`](https://x.org) and more.\n");
  CHECK(translate("see [a b c d](u \"t x\") e\nf g `h i j` k l\n") ==
        "see [a b c d](u \"t x\") e\nf g `h i j` k l\n");
}

TEST_CASE("markdown writer: model text escaped where Markdown would read it", "[documents]") {
  CHECK(documents::escape_markdown_text("a*b [c] `d` ~e~ f|g") == "a\\*b \\[c\\] \\`d\\` \\~e\\~ f\\|g");
  CHECK(documents::escape_markdown_text("snake_case _x_ 1 < 2 <b> &amp; & x") ==
        "snake_case \\_x\\_ 1 < 2 \\<b> \\&amp; & x");
  // The source's own escapes are the writer's: not doubled.
  CHECK(translate("A \\*star\\* and a \\#.\n") == "A \\*star\\* and a #.\n");
  CHECK(translate("\\# Not a heading.\n") == "\\# Not a heading.\n");
  CHECK(translate("x\n", translator([](const std::string&) { return "a *b* [c]"; })) ==
        "a \\*b\\* \\[c\\]\n");
}

TEST_CASE("markdown writer: HTML blocks go through the HTML reader", "[documents]") {
  const std::string md =
      "Text.\n\n<p>A dog &amp; a <b>cat</b>.</p>\n\n<pre>\nKept.\n</pre>\n\n> <p>In a\n> quote.</p>\n\n"
      "<div>\n  <p>Indented.</p>\n</div>\n";
  std::vector<std::string> texts;
  const std::string out = translate(md, translator([&](const std::string& text) {
                                      texts.push_back(text);
                                      return text;
                                    }));
  CHECK(out == md);
  // An HTML block inside a container keeps its prefixes verbatim: not a segment.
  CHECK(texts == std::vector<std::string>{"Text.", "A dog & a cat.", "Indented."});
}
