// Threads sharing each batch (products split by columns, attention and log-softmax by rows), as they do
// by default on models with d_model >= 512: the output of one thread, in order.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/threads.h"
#include "pipeline/translator.h"
#include "test_support.h"
#include "threads_test_support.h"

TEST_CASE("threads sharing each batch give the output of one thread, in order", "[threads][translator]") {
  test::ThreadsGuard guard;
  const pipeline::Translator translator(test::fixtures_dir() + "/opus/model");
  std::vector<std::string> lines;
  for (int i = 0; i < 40; ++i)
    lines.push_back(i % 7 == 3 ? std::string() : "the man number " + std::to_string(i));
  for (const int beam : {1, 3}) {
    pipeline::TranslateOptions o = translator.defaults();
    o.beam_size = beam;
    o.n_best = beam;
    o.batch_size = 16;
    core::set_num_threads(1);
    const auto one = test::translation_texts(translator.translate(lines, o));
    REQUIRE(one.size() > lines.size() / 2);
    for (const int threads : {2, 3}) {
      CAPTURE(beam, threads);
      core::set_num_threads(threads);
      core::force_threads_share_batches(true);
      REQUIRE(core::threads_share_batches(8));
      CHECK(test::translation_texts(translator.translate(lines, o)) == one);
      core::force_threads_share_batches(false);
      REQUIRE_FALSE(core::threads_share_batches(4096));
      CHECK(test::translation_texts(translator.translate(lines, o)) == one);
    }
  }
}

TEST_CASE("threads share batches only with two threads or more", "[threads]") {
  test::ThreadsGuard guard;
  core::force_threads_share_batches(true);
  core::set_num_threads(1);
  CHECK_FALSE(core::threads_share_batches(4096));
  core::set_num_threads(2);
  CHECK(core::threads_share_batches(4096));
}
