// Beam search by CTranslate2's rules (core::BeamRules::kCTranslate2, docs/search.md) against Hugging
// Face's on scripted decoders: the two conventions pick different hypotheses and stop at different steps.
#include "search_test_support.h"

using namespace search_test;

TEST_CASE("CTranslate2's rules count the EOS in the length, but not at the length limit",
          "[search][ctranslate2]") {
  Script script;
  script.table[{}] = {0.001, 0.5, 0.45, 0.0245, 0.0245};
  script.table[{1}] = {0.5, 0.125, 0.125, 0.125, 0.125};
  script.table[{2}] = {0.17, 0.2, 0.19, 0.3, 0.14};
  // Beam 2, lp 1, at most 3 tokens (the third a forced EOS). Step 2's top 4: [1 EOS] .25, [2 3] .135,
  // [2 1] .09, [2 2] .0855.
  // Hugging Face: [1 EOS] finishes, [2 3] and [2 1] run; step 3 ends both with the forced EOS:
  // [2 3] ln(.135)/3 = -0.667 beats [1] ln(.25)/2 = -0.693 ([2 1], -0.803, is dropped).
  auto result = run_one(script, 3, make_options(2, 2, 1.0f));
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {2, 3}, ln(0.45 * 0.3) / 3);
  check_hypothesis(result[1], {1}, ln(0.25) / 2);
  // CTranslate2 (translate_batch keeps the EOS in the hypothesis it scores): [1 EOS] ln(.25)/2 = -0.693.
  // Its limit, 2 tokens without the EOS, ends step 2's first two candidates as they are: [2 3] has no EOS
  // there, ln(.135)/2 = -1.001 (counting our forced EOS it would win, -0.667), and no beam comes from below
  // them.
  result = run_one(script, 3, make_options(2, 2, 1.0f, core::BeamRules::kCTranslate2));
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {1}, ln(0.25) / 2);
  check_hypothesis(result[1], {2, 3}, ln(0.45 * 0.3) / 2);
  CHECK_FALSE(result[0].length_limit);
  CHECK(result[1].length_limit);
}

TEST_CASE("CTranslate2's rules stop once beam-size hypotheses finished", "[search][ctranslate2]") {
  Script script;
  script.table[{}] = {0.5, 0.4, 0.04, 0.03, 0.03};
  script.table[{1}] = {0.9, 0.04, 0.03, 0.02, 0.01};
  // Beam 2, lp 1. Step 1: [] finishes, scored ln(.5)/1 (its EOS is its length), and its place goes to
  // rank 2, [2]; [1] runs. Step 2: [1 EOS] .36 and [2 EOS] .036 finish (ranks 0 and 1): done, best
  // [1] ln(.36)/2, then [] ln(.5). Hugging Face's rule takes a third step (test_search.cc, "length penalty
  // changes the winner").
  int steps = 0;
  auto result = run_one(script, 10, make_options(2, 2, 1.0f, core::BeamRules::kCTranslate2), &steps);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {1}, ln(0.36) / 2);
  check_hypothesis(result[1], {}, ln(0.5));
  CHECK(steps == 2);
  run_one(script, 10, make_options(2, 2, 1.0f), &steps);
  CHECK(steps == 3);
  // lp 0: CTranslate2 exits once its best candidate was an EOS and n_best have finished: step 1 ([]).
  result = run_one(script, 10, make_options(2, 1, 0.0f, core::BeamRules::kCTranslate2), &steps);
  REQUIRE(result.size() == 1);
  check_hypothesis(result[0], {}, ln(0.5));
  CHECK(steps == 1);
}
