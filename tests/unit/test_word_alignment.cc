// Word alignments from cross-attention against hand-computed cases.
#include <catch2/catch.hpp>

#include "pipeline/word_alignment.h"

namespace {
const std::string kB = "\xE2\x96\x81";  // "▁"
}

TEST_CASE("pieces map to whitespace-separated words", "[alignment]") {
  CHECK(pipeline::piece_words({kB + "the", kB + "bl", "ack", kB + "cat", ""}) ==
        std::vector<int>{0, 1, 1, 2, -1});
  // A bare "▁" begins the word of the piece after it; a first piece without "▁" still begins word 0.
  CHECK(pipeline::piece_words({"\"", "hi", kB, "\"", kB + "x"}) == std::vector<int>{0, 0, 1, 1, 2});
  CHECK(pipeline::piece_words({"", kB + "a"}) == std::vector<int>{-1, 0});  // a language tag, then a word
  CHECK(pipeline::piece_words({}).empty());
}

TEST_CASE("each target word takes the source word with the most attention summed over pieces",
          "[alignment]") {
  // source: "the black cat" = ▁the ▁bl ack ▁cat </s>; target: "die schwarze Katze" = ▁die ▁schwarz e ▁Katze,
  // plus the EOS step's row (not read).
  const std::vector<int> source_words = pipeline::piece_words({kB + "the", kB + "bl", "ack", kB + "cat", ""});
  const std::vector<int> target_words =
      pipeline::piece_words({kB + "die", kB + "schwarz", "e", kB + "Katze"});
  // Taken piece by piece, both pieces of "schwarze" look at "cat" (.30, .35); summed over the word's pieces
  // on both sides, "black" gets .25 + .20 + .15 + .15 = .75 against cat's .65.
  const std::vector<float> weights = {
      0.70f, 0.10f, 0.10f, 0.05f, 0.05f,  // ▁die
      0.10f, 0.25f, 0.20f, 0.30f, 0.15f,  // ▁schwarz
      0.30f, 0.15f, 0.15f, 0.35f, 0.05f,  // e
      0.05f, 0.10f, 0.10f, 0.70f, 0.05f,  // ▁Katze
      0.00f, 0.00f, 0.00f, 0.00f, 1.00f,  // the EOS step: not read
  };
  const auto links = pipeline::align_words(weights, 5, target_words, source_words);
  REQUIRE(links.size() == 3);
  CHECK(pipeline::format_alignment(links) == "0-0 1-1 2-2");
}

TEST_CASE("ties go to the lower source word, no source words, no links", "[alignment]") {
  const std::vector<float> weights = {0.5f, 0.5f};
  CHECK(pipeline::format_alignment(pipeline::align_words(weights, 2, {0}, {0, 1})) == "0-0");
  CHECK(pipeline::align_words(weights, 2, {0}, {-1, -1}).empty());
}

TEST_CASE("a layer's alignment weights: its heads averaged, or one head", "[alignment]") {
  models::AttentionMatrices m;
  m.n_heads = 2;
  m.source_len = 2;
  m.target_len = 1;
  m.cross = {{0.2f, 0.8f, 0.6f, 0.4f}};
  CHECK(pipeline::alignment_weights(m, 0, -1) == std::vector<float>{0.4f, 0.6f});
  CHECK(pipeline::alignment_weights(m, 0, 0) == std::vector<float>{0.2f, 0.8f});
  CHECK(pipeline::alignment_weights(m, 0, 1) == std::vector<float>{0.6f, 0.4f});
  CHECK_THROWS_AS(pipeline::alignment_weights(m, 0, 2), std::logic_error);
}
