// pipeline/sentence_checks.h: the sentence confidence, each failure flag and the low-confidence texts.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "pipeline/sentence_checks.h"

namespace {

using Flags = std::vector<std::string>;

Flags flags_of(const std::string& source, const std::string& target, const std::vector<int32_t>& ids = {}) {
  return pipeline::failure_flags(source, target, ids);
}

}  // namespace

TEST_CASE("confidence is the geometric mean of the token probabilities", "[confidence]") {
  CHECK(pipeline::sentence_confidence({}) == 0.0f);
  CHECK(pipeline::sentence_confidence({0.0f, 0.0f}) == 1.0f);
  CHECK(pipeline::sentence_confidence({std::log(0.5f), std::log(0.125f)}) == Approx(0.25));
  CHECK(pipeline::sentence_confidence({-INFINITY}) == 0.0f);
}

TEST_CASE("a sane translation has no flags", "[flags]") {
  CHECK(flags_of("A man sells 12.5 kilos of fish.", "Ein Mann verkauft 12,5 Kilo Fisch.", {1, 2, 3, 4, 5})
            .empty());
  CHECK(flags_of("2 dogs play.", "Zwei Hunde spielen.").empty());
}

TEST_CASE("loop: an n-gram repeated back to back", "[flags]") {
  CHECK(flags_of("a b", "x", {5, 6, 7, 6, 7, 6, 7, 8}) == Flags{"loop"});
  CHECK(flags_of("a b", "x", {5, 5, 5, 5}) == Flags{"loop"});
  CHECK(flags_of("a b", "x", {5, 5, 5, 6, 7, 6, 7}).empty());  // a token thrice, a 2-gram twice
  CHECK(flags_of("a b", "x", {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}) == Flags{"loop"});
}

TEST_CASE("length-ratio: target far shorter or longer than the source", "[flags]") {
  CHECK(flags_of("A man is walking down the street.", "Mann.") == Flags{"length-ratio"});
  CHECK(flags_of("A dog runs.", std::string(40, 'x')) == Flags{"length-ratio"});
  CHECK(flags_of("Hi.", std::string(40, 'x')).empty());  // too short a source to judge
}

TEST_CASE("copy: the output mostly repeats the source", "[flags]") {
  CHECK(flags_of("The quarterly report is late.", "The quarterly report ist late.") == Flags{"copy"});
  CHECK(flags_of("Tom sees Mary.", "Tom sieht Mary.").empty());  // names only
}

TEST_CASE("numbers: a source number missing or changed", "[flags]") {
  CHECK(flags_of("It cost $12.5 million.", "Es kostete 25555 25 Millionen.") == Flags{"numbers"});
  CHECK(flags_of("Room 2048 is free.", "Zimmer 2084 ist frei.") == Flags{"numbers"});
  CHECK(flags_of("Call 3 3 times.", "Ruf 3 an.").empty());  // small numbers may be spelled out
  CHECK(flags_of("13 cats sleep.", "Dreizehn Katzen schlafen.") == Flags{"numbers"});
}

TEST_CASE("what replaces a translation below the minimum confidence", "[confidence]") {
  using pipeline::LowConfidenceAction;
  CHECK(pipeline::low_confidence_text(pipeline::low_confidence_action("keep"), "src", "tgt") == "tgt");
  CHECK(pipeline::low_confidence_text(pipeline::low_confidence_action("source"), "src", "tgt") == "src");
  CHECK(pipeline::low_confidence_text(pipeline::low_confidence_action("empty"), "src", "tgt").empty());
  CHECK(pipeline::low_confidence_text(pipeline::low_confidence_action("mark"), "src", "tgt") ==
        "[low confidence] tgt");
  CHECK_THROWS_AS(pipeline::low_confidence_action("drop"), std::invalid_argument);
}

TEST_CASE("low confidence: the links follow the text that is written", "[sentence_checks]") {
  using pipeline::LowConfidenceAction;
  using pipeline::low_confidence_links;
  const std::vector<pipeline::WordLink> links = {{1, 0}, {0, 1}};
  const auto pairs = [](const std::vector<pipeline::WordLink>& l) {
    std::vector<std::pair<int, int>> out;
    for (const auto& link : l) out.emplace_back(link.source, link.target);
    return out;
  };
  CHECK(pairs(low_confidence_links(LowConfidenceAction::kKeep, "a b", links)) ==
        std::vector<std::pair<int, int>>{{1, 0}, {0, 1}});
  CHECK(pairs(low_confidence_links(LowConfidenceAction::kSource, "a  b c", links)) ==
        std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 2}});
  CHECK(low_confidence_links(LowConfidenceAction::kEmpty, "a b", links).empty());
  CHECK(pairs(low_confidence_links(LowConfidenceAction::kMark, "a b", links)) ==
        std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 2}, {0, 3}});
}
