// Beam search by marian-decoder's rules (core::BeamRules::kMarian, docs/search.md) against Hugging Face's
// on scripted decoders: Marian's beam narrows for good as hypotheses finish, so the two explore different
// hypotheses and compute different rows.
#include "search_test_support.h"

using namespace search_test;

TEST_CASE("Marian's beam narrows when a hypothesis finishes", "[search][marian]") {
  Script script;
  script.table[{}] = {0.32, 0.38, 0.30};
  script.table[{1}] = {0.5, 0.125, 0.125, 0.125, 0.125};
  script.table[{2}] = {0.99, 0.0025, 0.0025, 0.0025, 0.0025};
  // Beam 2, lp 1. Step 1's top 2: [1] .38, [] .32: [] finishes (ln .32 / 1 = -1.139).
  // Marian: the beam is now [1] alone; step 2's one candidate is [1 EOS], ln .19 / 2 = -0.830, and the
  // search ends with no hypothesis running: 2 rows computed in all.
  int rows = 0;
  auto result = run_one(script, 10, make_options(2, 2, 1.0f, core::BeamRules::kMarian), nullptr, &rows);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {1}, ln(0.38 * 0.5) / 2);
  check_hypothesis(result[1], {}, ln(0.32));
  CHECK(rows == 2);
  // Hugging Face keeps two running beams, [1] and [2] (rank 2), and finds [2 EOS]: ln .297 / 2 = -0.607.
  result = run_one(script, 10, make_options(2, 2, 1.0f), nullptr, &rows);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {2}, ln(0.30 * 0.99) / 2);
  CHECK(rows > 3);
}

TEST_CASE("Marian's rules run until every hypothesis has finished", "[search][marian]") {
  Script script;
  script.table[{}] = {0.5, 0.4, 0.04, 0.03, 0.03};
  script.table[{1}] = {0.02, 0.9, 0.04, 0.02, 0.02};
  script.table[{1, 1}] = {0.02, 0.9, 0.04, 0.02, 0.02};
  script.table[{1, 1, 1}] = {0.9, 0.025, 0.025, 0.025, 0.025};
  // Beam 2, lp 0. Step 1: [] finishes (ln .5); [1] runs alone. No later score can beat ln .5, yet Marian
  // follows [1] until its EOS at step 4, one row a step: 4 rows with the start row.
  int rows = 0;
  auto result = run_one(script, 10, make_options(2, 2, 0.0f, core::BeamRules::kMarian), nullptr, &rows);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {}, ln(0.5));
  check_hypothesis(result[1], {1, 1, 1}, ln(0.4 * 0.9 * 0.9 * 0.9));
  CHECK(rows == 4);
}

TEST_CASE("Marian's length limit scores a hypothesis without an EOS", "[search][marian]") {
  Script script;
  script.table[{}] = {0.1, 0.6, 0.3};
  script.table[{1}] = {0.1, 0.2, 0.7};
  script.table[{2}] = {0.1, 0.8, 0.1};
  // Beam 2, lp 1, at most 3 tokens (the third a forced EOS, Marian's limit of 2). Step 2: [2 1] .24 and
  // [1 2] .42 run; step 3 ends both, each scored by its 2 tokens: [1 2] ln .42 / 2.
  auto result = run_one(script, 3, make_options(2, 2, 1.0f, core::BeamRules::kMarian));
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {1, 2}, ln(0.6 * 0.7) / 2);
  check_hypothesis(result[1], {2, 1}, ln(0.3 * 0.8) / 2);
  CHECK(result[0].length_limit);
  CHECK(result[0].token_scores.back() == 0.0f);
}

TEST_CASE("Marian's beam widens after a forced prefix", "[search][marian]") {
  Script script;
  script.table[{3}] = {0.1, 0.5, 0.4};
  script.table[{3, 1}] = {0.9, 0.025, 0.025, 0.025, 0.025};
  script.table[{3, 2}] = {0.95, 0.0125, 0.0125, 0.0125, 0.0125};
  // Beam 2, lp 0, prefix [3] (the start's table is the fallback: p(3) = .025): the prefix step is one
  // candidate, after it two beams run ([3 1], [3 2]), and both finish at the next step.
  SearchOptions options = make_options(2, 2, 0.0f, core::BeamRules::kMarian);
  options.prefixes = {{3}};
  auto result = run_one(script, 10, options);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {3, 1}, ln(0.025 * 0.5 * 0.9));
  check_hypothesis(result[1], {3, 2}, ln(0.025 * 0.4 * 0.95));
}
