// Segments' word links placed in their line, against hand-computed cases.
#include <catch2/catch.hpp>

#include "pipeline/line_alignment.h"

namespace {

pipeline::LineLayout layout_of(std::vector<std::string> after) {
  pipeline::LineLayout layout;
  layout.after = std::move(after);
  return layout;
}

std::string line_pairs(const pipeline::LineLayout& layout,
                       const std::vector<pipeline::AlignedSegment>& segments, const std::string& source,
                       bool join_unspaced) {
  std::vector<std::string> texts;
  for (const auto& s : segments) texts.push_back(s.translation);
  const std::string target = pipeline::rejoin(layout, texts, join_unspaced);
  return pipeline::format_alignment(pipeline::line_links(layout, segments, source, target, join_unspaced));
}

}  // namespace

TEST_CASE("segments' words are offset by the words before them, a word cut in two counts once",
          "[alignment]") {
  // "abcdef ghi jkl" cut as "abc" | "def ghi" | "jkl": the first cut is inside "abcdef".
  const pipeline::LineLayout layout = layout_of({"", " ", ""});
  const std::vector<pipeline::AlignedSegment> segments = {
      {{{0, 0}}, 1, "X"}, {{{1, 0}, {0, 1}}, 2, "Y Z"}, {{{0, 0}}, 1, "W"}};
  // Target "X Y Z W" (a space joins X and Y); "def" is word 0 of its line, "jkl" word 2.
  CHECK(line_pairs(layout, segments, "abcdef ghi jkl", false) == "0-0 1-1 0-2 2-3");
  // A target without spaces: "XY Z W", X and Y one word, linked once (its first link).
  CHECK(line_pairs(layout, segments, "abcdef ghi jkl", true) == "0-0 0-1 2-2");
  CHECK(pipeline::count_words("  XY Z\tW ") == 3);
}

TEST_CASE("line links are clamped into the line and every target word gets exactly one", "[alignment]") {
  const pipeline::LineLayout layout = layout_of({""});
  // A link past the translation's words (pieces the text spells as fewer words) folds into its last word.
  CHECK(line_pairs(layout, {{{{0, 0}, {0, 1}, {1, 2}}, 2, "A B"}}, "a b", false) == "0-0 0-1");
  // Words no link reaches take their neighbour's source word; a source word past the line is its last.
  CHECK(line_pairs(layout, {{{{5, 1}}, 2, "A B C"}}, "a b", false) == "1-0 1-1 1-2");
  // Nothing to align on either side: no pairs.
  CHECK(line_pairs(layout, {{{{0, 0}}, 1, "A"}}, "  ", false).empty());
  CHECK(line_pairs(layout, {{{}, 1, ""}}, "a", false).empty());
}
