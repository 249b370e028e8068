// Replicas: translators on one loaded model, each with its own team, taking batches from one queue
// (pipeline/translate_batches.cc), and how the commands split the cores between replicas and threads.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/threads.h"
#include "front/core_split.h"
#include "pipeline/translator.h"
#include "test_support.h"
#include "threads_test_support.h"

TEST_CASE("replicas give the output of one translator, in order", "[threads][replicas]") {
  test::ThreadsGuard guard;
  const pipeline::Translator translator(test::fixtures_dir() + "/opus/model");
  std::vector<std::string> lines;
  for (int i = 0; i < 45; ++i)
    lines.push_back(i % 9 == 4 ? std::string() : "the man number " + std::to_string(i * 7 % 40));
  pipeline::TranslateOptions o = translator.defaults();
  o.beam_size = 2;
  o.n_best = 2;
  o.batch_size = 4;  // a dozen batches for the replicas to share
  core::set_num_threads(1);
  const auto one = test::translation_texts(translator.translate(lines, o));
  REQUIRE(one.size() > lines.size());
  for (const bool share : {true, false}) {
    core::force_threads_share_batches(share);
    for (const int threads : {1, 2}) {
      for (const int replicas : {2, 3}) {
        CAPTURE(share, threads, replicas);
        core::set_num_threads(threads);
        o.replicas = replicas;
        CHECK(test::translation_texts(translator.translate(lines, o)) == one);
      }
    }
  }
}

TEST_CASE("replicas split the cores as the commands say", "[replicas]") {
  const auto split = [](int replicas, int threads, int cores) {
    const front::CoreSplit s = front::split_cores(replicas, threads, cores);
    return std::vector<int>{s.replicas, s.threads};
  };
  CHECK(split(1, 0, 2) == std::vector<int>{1, 2});  // nmt translate's default: one translator, all cores
  CHECK(split(2, 0, 2) == std::vector<int>{2, 1});
  CHECK(split(2, 3, 2) == std::vector<int>{2, 3});  // --threads as given
  CHECK(split(3, 0, 16) == std::vector<int>{3, 5});
  // nmt serve's default: a replica per kServeCoresPerReplica cores, the cores divided among them.
  CHECK(split(0, 0, 1) == std::vector<int>{1, 1});
  CHECK(split(0, 0, 2 * front::kServeCoresPerReplica) == std::vector<int>{2, front::kServeCoresPerReplica});
  CHECK(split(0, 0, front::kServeCoresPerReplica * 4) == std::vector<int>{4, front::kServeCoresPerReplica});
  CHECK(split(0, 3, 16) == std::vector<int>{1, 3});  // --threads alone: one translator's budget
  CHECK_THROWS_WITH(front::split_cores(3, 0, 2),
                    "--replicas 3 is more than this machine's 2 cores: each replica needs one at least");
}
