// Markup projection alone: hand-made segments and alignments, no model.
#include <catch2/catch.hpp>

#include "documents/projection.h"

namespace {

using documents::Segment;

std::string plain(std::string_view text) { return std::string(text); }

// A segment from a tiny notation: <x> opens an element spelled "<x>", </x> closes it, [y] is an insertion
// spelled "[y]"; everything else is text.
Segment parse(const std::string& marked) {
  Segment s;
  std::vector<std::pair<std::string, size_t>> open;
  for (size_t i = 0; i < marked.size();) {
    if (marked[i] == '<' || marked[i] == '[') {
      const size_t end = marked.find(marked[i] == '<' ? '>' : ']', i) + 1;
      const std::string tag = marked.substr(i, end - i);
      if (tag[0] == '[') {
        s.insert(tag);
      } else if (tag[1] == '/') {
        s.close_element(open.back().second, tag);
        open.pop_back();
      } else {
        open.emplace_back(tag, s.open_element(tag));
      }
      i = end;
    } else {
      s.text += marked[i++];
    }
  }
  return s;
}

std::vector<documents::WordLink> links(std::initializer_list<std::pair<int, int>> target_to_source) {
  std::vector<documents::WordLink> out;
  for (auto [t, s] : target_to_source) out.push_back({s, t});
  return out;
}

std::string project(const std::string& marked, const std::string& target,
                    std::initializer_list<std::pair<int, int>> target_to_source) {
  return documents::project_markup(parse(marked), target, links(target_to_source), plain);
}

}  // namespace

TEST_CASE("projection: text without markup comes back escaped", "[projection]") {
  const auto escape = [](std::string_view t) {
    std::string out;
    for (char c : t) out += c == '&' ? std::string("&amp;") : std::string(1, c);
    return out;
  };
  CHECK(documents::project_markup(parse("a & b"), "x & y", links({{0, 0}, {1, 1}, {2, 2}}), escape) ==
        "x &amp; y");
}

TEST_CASE("projection: a bold word follows its aligned target word", "[projection]") {
  CHECK(project("the <b>red</b> car", "das rote Auto", {{0, 0}, {1, 1}, {2, 2}}) == "das <b>rote</b> Auto");
  // Reordered: the bold source word is translated last.
  CHECK(project("<b>red</b> car", "Auto rot", {{0, 1}, {1, 0}}) == "Auto <b>rot</b>");
}

TEST_CASE("projection: nested elements stay nested", "[projection]") {
  CHECK(project("a <i>b <b>c</b> d</i> e", "A B C D E", {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}) ==
        "A <i>B <b>C</b> D</i> E");
  // The inner element's word moves out of its parent: it is clipped into the parent, empty at its edge.
  const std::string out = project("<i>b <b>c</b></i> d", "C D B", {{0, 1}, {1, 2}, {2, 0}});
  CHECK(out.find("<i>") < out.find("<b>"));
  CHECK(out.find("</b>") < out.find("</i>"));
}

TEST_CASE("projection: markup over part of a word survives", "[projection]") {
  CHECK(project("<b>un</b>happy", "unhappy", {{0, 0}}) == "<b>un</b>happy");
  CHECK(project("un<b>happy</b> day", "ungluecklich Tag", {{0, 0}, {1, 1}}) == "ungl<b>uecklich</b> Tag");
}

TEST_CASE("projection: insertions keep their source order", "[projection]") {
  CHECK(project("a[1] b[2] c", "A B C", {{0, 0}, {1, 1}, {2, 2}}) == "A[1] B[2] C");
  // The target reverses the words; the insertions still come out in source order.
  const std::string out = project("a[1] b[2] c", "C B A", {{0, 2}, {1, 1}, {2, 0}});
  CHECK(out.find("[1]") < out.find("[2]"));
  CHECK(project("[x]a b", "A B", {{0, 0}, {1, 1}}) == "[x]A B");
  CHECK(project("a b[y]", "A B", {{0, 0}, {1, 1}}) == "A B[y]");
  CHECK(project("ab[m]cd", "abcd", {{0, 0}}) == "ab[m]cd");
}

TEST_CASE("projection: split aligned words keep one element over their hull", "[projection]") {
  // Two target words align to the bold word with an unbold one between them: one element covers all three.
  CHECK(project("a <b>b</b> c", "B1 A B2 C", {{0, 1}, {1, 0}, {2, 1}, {3, 2}}) == "<b>B1 A B2</b> C");
}

TEST_CASE("projection: crossing hulls are clipped, every element once", "[projection]") {
  // Two sibling elements whose target words interleave.
  const std::string out = project("<i>a b</i> <b>c d</b>", "A C B D", {{0, 0}, {1, 2}, {2, 1}, {3, 3}});
  CHECK(out == "<i>A C B</i> <b>D</b>");
}

TEST_CASE("projection: unaligned target words take their left neighbour's source word", "[projection]") {
  CHECK(project("a <b>b</b> c", "A B X C", {{0, 0}, {1, 1}, {3, 2}}) == "A <b>B X</b> C");
  // With no link at all, every target word takes source word 0.
  CHECK(project("<b>a</b> b", "A B", {}) == "<b>A B</b>");
}

TEST_CASE("projection: an element with no text stays, empty, in place", "[projection]") {
  CHECK(project("a <a></a>b", "A B", {{0, 0}, {1, 1}}) == "A<a></a> B");
  CHECK(project("<i>a</i>", "", {}) == "<i></i>");
  CHECK(project("a[1]", "", {}) == "[1]");
}

TEST_CASE("projection: multi-byte characters are never split", "[projection]") {
  const std::string out = project("<b>ab</b>cd", "äöüß", {{0, 0}});
  CHECK(out == "<b>äö</b>üß");
}

TEST_CASE("projection: punctuation at a word's edge keeps its own markup", "[projection]") {
  CHECK(project("the <a>grass</a>.", "das Gras.", {{0, 0}, {1, 1}}) == "das <a>Gras</a>.");
  CHECK(project("\"<i>hello</i>\"", "\"hallo\"", {{0, 0}}) == "\"<i>hallo</i>\"");
}

TEST_CASE("projection: a word of stray UTF-8 continuation bytes is still a word", "[projection]") {
  CHECK(project("<b>\x94</b> a", "\x94 A", {{0, 0}, {1, 1}}) == "<b>\x94</b> A");
  CHECK(project("<b>a</b> b", "\x94\x94 B", {{0, 0}, {1, 1}}) == "<b>\x94\x94</b> B");
}

TEST_CASE("an element whose words the translation dropped goes around the word at its place",
          "[documents][projection]") {
  const Segment s = parse("Click <a>here</a> to continue.");
  // "here" (source word 1) has no target word.
  const auto l = links({{0, 0}, {1, 0}, {2, 2}, {3, 3}});
  CHECK(documents::project_markup(s, "Klicken Sie, um fortzufahren.", l, plain) ==
        "Klicken Sie,<a></a> um fortzufahren.");
  size_t moved = 0;
  CHECK(documents::project_markup(s, "Klicken Sie, um fortzufahren.", l, plain, nullptr, &moved) ==
        "Klicken Sie, <a>um</a> fortzufahren.");
  CHECK(moved == 1);
  CHECK(
      documents::moved_elements_warning("p.html", s, moved) ==
      "p.html: the translation left 1 inline element without words; each went around the word at its place");
}

TEST_CASE("a dropped element takes no word another element holds", "[documents][projection]") {
  const Segment s = parse("A <b>big</b> <i>dog</i> runs.");
  size_t moved = 0;
  // "big" dropped; the word after its place is "Hund", which <i> holds.
  CHECK(documents::project_markup(s, "Ein Hund rennt.", links({{0, 0}, {1, 2}, {2, 3}}), plain, nullptr,
                                  &moved) == "Ein<b></b> <i>Hund</i> rennt.");
  CHECK(moved == 0);
}

TEST_CASE("an element a reader left past the end of the text is no word to move", "[documents][projection]") {
  Segment s;
  s.text = "a b";
  s.elements.push_back({2, 9, "<x>", "</x>", 0});  // a cue trimmed after its element closed
  s.elements.push_back({5, 9, "<y>", "</y>", 1});
  size_t moved = 0;
  CHECK_NOTHROW(documents::project_markup(s, "A B", links({{0, 0}, {1, 1}}), plain, nullptr, &moved));
  CHECK_NOTHROW(documents::project_markup(s, "A B", links({{0, 0}, {1, 1}}), plain));
}
