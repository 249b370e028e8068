// End-to-end: `nmt translate --sampling-*` and `--seed` on the checked-in fixture model.
#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "cli/exit_codes.h"
#include "test_support.h"

namespace {

std::string translate() {
  return "'" + test::nmt_binary() + "' translate -m '" + test::fixtures_dir() + "/opus/model'";
}

const char* kInput =
    "the man is walking\na small dog\n\nTwo people sit on a bench near a child\nlast one here\n"
    "a woman rides a bike down the street\n";

}  // namespace

TEST_CASE("sampling: same seed, same output, whatever the threads and batches, another seed differs",
          "[cli][sampling]") {
  const std::string sample = translate() + " --sampling-topk 0 --sampling-temperature 1.5 --n-best 3";
  const auto a = test::run(sample + " --seed 7 --threads 1", kInput);
  REQUIRE(a.exit_code == 0);
  const auto b = test::run(sample + " --seed 7 --threads 2 --batch-size 1", kInput);
  REQUIRE(b.exit_code == 0);
  CHECK(a.out == b.out);
  const auto c = test::run(sample + " --seed 8 --threads 1", kInput);
  REQUIRE(c.exit_code == 0);
  CHECK(c.out != a.out);
  // n-best: 3 samples per one-sentence line, numbered by input line.
  size_t lines = 0;
  for (char ch : a.out) lines += ch == '\n';
  CHECK(lines == 5 * 3 + 1);  // the blank line has one (blank) hypothesis
  CHECK(a.out.find("5 ||| ") != std::string::npos);
}

TEST_CASE("sampling: lines beyond the first reading window sample as in one window", "[cli][sampling]") {
  // --batch-size 1 reads 32 lines per window; 40 lines (the same text repeated) span two windows.
  std::string input;
  for (int i = 0; i < 40; ++i) input += "A woman rides a bike down the street. The man is walking.\n";
  const std::string sample = translate() + " --sampling-topk 0 --sampling-temperature 2 --seed 11";
  const auto one_window = test::run(sample + " --threads 1 --batch-size 64", input);
  const auto two_windows = test::run(sample + " --threads 2 --batch-size 1", input);
  const auto by_tokens = test::run(sample + " --threads 2 --max-batch-tokens 25", input);
  REQUIRE(one_window.exit_code == 0);
  REQUIRE(two_windows.exit_code == 0);
  REQUIRE(by_tokens.exit_code == 0);
  CHECK(two_windows.out == one_window.out);
  CHECK(by_tokens.out == one_window.out);
  // Each line draws its own samples: the repeated text does not give 40 equal lines.
  std::istringstream lines(one_window.out);
  std::set<std::string> distinct;
  for (std::string line; std::getline(lines, line);) distinct.insert(line);
  CHECK(distinct.size() > 1);
}

TEST_CASE("sampling: top-k 1 equals greedy", "[cli][sampling]") {
  const auto greedy = test::run(translate() + " -b 1 --threads 1", kInput);
  const auto top1 = test::run(translate() + " --sampling-topk 1 --seed 3 --threads 1", kInput);
  REQUIRE(greedy.exit_code == 0);
  REQUIRE(top1.exit_code == 0);
  CHECK(top1.out == greedy.out);
  const auto nucleus = test::run(translate() + " --sampling-topp 0.000001 --seed 4 --threads 1", kInput);
  REQUIRE(nucleus.exit_code == 0);
  CHECK(nucleus.out == greedy.out);  // the smallest nucleus is the argmax alone
}

TEST_CASE("sampling: flags that cannot work are usage errors", "[cli][sampling]") {
  for (const char* flags : {" --seed 3", " --sampling-topk 5 -b 4", " --sampling-topp 1.5",
                            " --sampling-temperature 0", " --sampling-topk -1"}) {
    INFO(flags);
    const auto r = test::run(translate() + flags, "a dog\n");
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(r.out.empty());
  }
}

TEST_CASE("sampling: a line of several sentences has n-best joined samples", "[cli][sampling]") {
  const std::string bundled = "'" + test::nmt_binary() + "' translate -m '" + std::string(NMT_TEST_DATA) +
                              "/multi30k-en-de' --threads 1 --sampling-temperature 3 --seed 2 --n-best 3";
  const auto r = test::run(bundled, "A man rides a bike. Two dogs play in the snow.\n");
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::set<std::string> texts;
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    CHECK(line.rfind("0 ||| ", 0) == 0);
    texts.insert(line.substr(0, line.find(" ||| F0=")));
  }
  CHECK(count == 3);
  CHECK(texts.size() > 1);  // independent samples, not one joined best repeated
}
