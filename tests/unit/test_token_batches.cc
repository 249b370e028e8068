// Batches bounded by source tokens (pipeline/batch_plan.h) and `nmt translate --max-batch-tokens`.
#include <catch2/catch.hpp>

#include "cli/exit_codes.h"
#include "pipeline/batch_plan.h"
#include "test_support.h"

using pipeline::token_batch_bounds;
using Bounds = std::vector<size_t>;

TEST_CASE("token batches: consecutive sentences up to the budget, a longer one alone", "[batching]") {
  CHECK(token_batch_bounds({}, 10) == Bounds{0});
  CHECK(token_batch_bounds({3, 3, 3, 4, 6, 20, 5}, 10) == Bounds{0, 3, 5, 6, 7});
  CHECK(token_batch_bounds({2, 2, 2}, 6) == Bounds{0, 3});
  CHECK(token_batch_bounds({2, 2, 2}, 1) == Bounds{0, 1, 2, 3});
  CHECK(token_batch_bounds({5, 5}, 1000) == Bounds{0, 2});
}

TEST_CASE("nmt translate --max-batch-tokens translates like --batch-size", "[cli][batching]") {
  const std::string translate =
      "'" + test::nmt_binary() + "' translate -m '" + test::fixtures_dir() + "/opus/model' --threads 1 -b 2";
  const std::string input =
      "a\nthe dog\nthe man is walking\nsomething much longer than the others here, with more words\nb\n";
  const auto sentences = test::run(translate, input);
  REQUIRE(sentences.exit_code == 0);
  for (const char* tokens :
       {" --max-batch-tokens 1", " --max-batch-tokens 12", " --max-batch-tokens 100000"}) {
    INFO(tokens);
    const auto r = test::run(translate + tokens, input);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == sentences.out);
  }
  const auto both = test::run(translate + " --max-batch-tokens 10 --batch-size 4", input);
  CHECK(both.exit_code == cli::kExitUsage);
}
