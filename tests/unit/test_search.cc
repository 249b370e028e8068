// Tests of core/search: scripted toy decoders with hand-computed results, row bookkeeping and option
// checks (the reference comparison is in test_search_reference.cc).
#include "search_test_support.h"

using namespace search_test;

TEST_CASE("greedy follows the argmax until EOS", "[search]") {
  Script script;
  script.table[{}] = {0.1, 0.5, 0.2, 0.1, 0.1};
  script.table[{1}] = {0.2, 0.1, 0.6, 0.05, 0.05};
  script.table[{1, 2}] = {0.7, 0.1, 0.1, 0.05, 0.05};
  const double sum = ln(0.5) + ln(0.6) + ln(0.7);
  int steps = 0;
  auto result = run_one(script, 10, make_options(1, 1, 1.0f), &steps);
  REQUIRE(result.size() == 1);
  check_hypothesis(result[0], {1, 2}, sum / 3);  // len 3 counts EOS
  CHECK(steps == 3);
  check_hypothesis(run_one(script, 10, make_options(1, 1, 0.0f))[0], {1, 2}, sum);
  check_hypothesis(run_one(script, 10, make_options(1, 1, 2.0f))[0], {1, 2}, sum / 9);
}

TEST_CASE("greedy ties go to the lower id", "[search]") {
  Script words;
  words.table[{}] = {0.1, 0.3, 0.3, 0.2, 0.1};
  words.table[{2}] = {0.1, 0.9, 0.0, 0.0, 0.0};
  check_hypothesis(run_one(words, 10, make_options(1, 1, 1.0f))[0], {1}, (ln(0.3) + ln(0.9)) / 2);
  Script eos;
  eos.table[{}] = {0.4, 0.4, 0.1, 0.05, 0.05};
  check_hypothesis(run_one(eos, 10, make_options(1, 1, 1.0f))[0], {}, ln(0.4));
}

TEST_CASE("the last allowed step forces EOS", "[search]") {
  Script script;
  script.fallback = {0.05, 0.5, 0.2, 0.15, 0.1};  // EOS is never the argmax
  for (int beam_size : {1, 2}) {
    INFO("beam_size " << beam_size);
    int steps = 0;
    auto result = run_one(script, 4, make_options(beam_size, 1, 1.0f), &steps);
    check_hypothesis(result[0], {1, 1, 1}, 3 * ln(0.5) / 4);  // forced EOS has log-prob 0
    CHECK(steps == 4);
    // max length 1: only EOS; the other beam-2 hypotheses would hold a forced-out token, so none is returned.
    auto single = run_one(script, 1, make_options(beam_size, beam_size, 1.0f));
    REQUIRE(single.size() == 1);
    check_hypothesis(single[0], {}, 0.0);
    // Banning EOS does not stop the forced one.
    SearchOptions no_eos = make_options(beam_size, 1, 1.0f);
    no_eos.banned = {kEos};
    check_hypothesis(run_one(script, 3, no_eos)[0], {1, 1}, 2 * ln(0.5 / 0.95) / 3);
  }
}

TEST_CASE("banned ids are never produced, renormalize rescales the rest", "[search]") {
  Script script;
  script.table[{}] = {0.1, 0.2, 0.1, 0.1, 0.1, 0.4};        // pad would win
  script.table[{1}] = {0.5, 0.1, 0.1, 0.05, 0.05, 0.2};     // EOS wins either way
  script.table[{5}] = {0.9, 0.02, 0.02, 0.02, 0.02, 0.02};  // only reachable through pad
  SearchOptions options = make_options(1, 1, 1.0f);
  options.renormalize = false;
  check_hypothesis(run_one(script, 10, options)[0], {5}, (ln(0.4) + ln(0.9)) / 2);
  options.banned = {kPad};
  check_hypothesis(run_one(script, 10, options)[0], {1}, (ln(0.2) + ln(0.5)) / 2);
  options.renormalize = true;  // pad's mass removed: divide by 0.6, then by 0.8
  check_hypothesis(run_one(script, 10, options)[0], {1}, (ln(0.2 / 0.6) + ln(0.5 / 0.8)) / 2);
}

// Scripted beams. Probabilities multiply along a path; "finished" scores are ln(product) / len^lp.
TEST_CASE("beam 2 finds what greedy misses", "[search]") {
  Script script;
  script.table[{}] = {0.05, 0.5, 0.4, 0.03, 0.02};
  script.table[{1}] = {0.35, 0.3, 0.15, 0.1, 0.1};
  script.table[{2}] = {0.9, 0.04, 0.03, 0.02, 0.01};
  // Greedy: 1 (.5) then EOS (.35).
  check_hypothesis(run_one(script, 10, make_options(1, 1, 1.0f))[0], {1}, ln(0.5 * 0.35) / 2);
  // Beam 2, lp 1. Step 1: top 4 = 1 (.5), 2 (.4), EOS (.05, rank 2: ignored), 3 -> running [1], [2].
  // Step 2: [2 EOS] .36 -> ln(.36)/2 = -0.511; [1 EOS] .175 -> -0.872 (worst); running [1 1] .15, [1 2] .075;
  //   best candidate -0.511 > worst: not done.
  // Step 3: [1 1 EOS] .135 -> ln(.135)/3 = -0.668 replaces [1]; [1 2 EOS] .0675 -> -0.899 < worst, rejected.
  //   best candidate ln(.135)/3 <= worst ln(.135)/3: done.
  int steps = 0;
  auto result = run_one(script, 10, make_options(2, 2, 1.0f), &steps);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {2}, ln(0.4 * 0.9) / 2);
  check_hypothesis(result[1], {1, 1}, ln(0.5 * 0.3 * 0.9) / 3);
  CHECK(steps == 3);
  // Max length 2: step 2 forces EOS on both beams.
  result = run_one(script, 2, make_options(2, 2, 1.0f));
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {1}, ln(0.5) / 2);
  check_hypothesis(result[1], {2}, ln(0.4) / 2);
}

TEST_CASE("length penalty changes the winner", "[search]") {
  Script script;
  script.table[{}] = {0.5, 0.4, 0.04, 0.03, 0.03};
  script.table[{1}] = {0.9, 0.04, 0.03, 0.02, 0.01};
  // lp 0: step 1 finishes [] (ln .5); step 2 finishes [1] (ln .36) and [2 EOS] (ln .036, rank 1) is rejected;
  //   best candidate ln .36 <= worst ln .36: done. Short output wins.
  int steps = 0;
  auto result = run_one(script, 10, make_options(2, 2, 0.0f), &steps);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {}, ln(0.5));
  check_hypothesis(result[1], {1}, ln(0.36));
  CHECK(steps == 2);
  // lp 1: [] scores ln(.5)/1 = -0.693 but [1] ln(.36)/2 = -0.511; best candidate -0.511 > worst -0.693 so one
  //   more step, whose best EOS ln(.4*.04*.9)/3 = -1.41 is below the worst: done.
  result = run_one(script, 10, make_options(2, 2, 1.0f), &steps);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {1}, ln(0.36) / 2);
  check_hypothesis(result[1], {}, ln(0.5));
  CHECK(steps == 3);
}

TEST_CASE("an EOS ranked beyond the beam is ignored", "[search]") {
  Script script;
  script.table[{}] = {0.1, 0.5, 0.3, 0.05, 0.05};
  script.table[{1}] = {0.3, 0.4, 0.1, 0.1, 0.1};
  script.table[{2}] = {0.45, 0.1, 0.15, 0.2, 0.1};
  script.table[{1, 1}] = {0.2, 0.2, 0.2, 0.2, 0.2};
  script.table[{2, 3}] = {0.2, 0.2, 0.2, 0.2, 0.2};
  // lp 0, beam 2. Step 2 ranks: [1 1] .2, [1 EOS] .15 (finished), [2 EOS] .135 (rank 2: ignored), [2 3] .06.
  // Step 3: [1 1 EOS] .04 finishes (list full, worst .04); best candidate .04 <= worst: done.
  // Had [2 EOS] been kept, it (.135) would beat [1 1] (.04).
  auto result = run_one(script, 10, make_options(2, 2, 0.0f));
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {1}, ln(0.15));
  check_hypothesis(result[1], {1, 1}, ln(0.04));
}

TEST_CASE("beam search stops early by Hugging Face's rule", "[search]") {
  Script script;
  script.table[{}] = {0.5, 0.3, 0.1, 0.05, 0.05};
  script.table[{1}] = {0.4, 0.5, 0.04, 0.03, 0.03};
  script.table[{1, 1}] = {0.2, 0.2, 0.2, 0.2, 0.2};
  script.table[{1, 1, 1}] = {0.99, 0.0025, 0.0025, 0.0025, 0.0025};
  // lp 1, beam 2. Step 1: [] finishes at ln(.5) = -0.693; running [1] .3, [2] .1.
  // Step 2: [1 1] .15 runs; [1 EOS] .12 -> ln(.12)/2 = -1.060 (worst); [2 EOS] .09 rank 2 ignored; [1 2]
  // runs.
  //   best candidate ln(.15)/2 = -0.949 > worst: continue.
  // Step 3: best candidate [1 1 EOS] ln(.03)/3 = -1.169 <= -1.060: done, although [1 1 1 EOS] would have
  //   scored ln(.0297)/4 = -0.879.
  int steps = 0;
  auto result = run_one(script, 10, make_options(2, 2, 1.0f), &steps);
  REQUIRE(result.size() == 2);
  check_hypothesis(result[0], {}, ln(0.5));
  check_hypothesis(result[1], {1}, ln(0.12) / 2);
  CHECK(steps == 3);
}

TEST_CASE("equal scores keep the order in which hypotheses finished", "[search]") {
  Script script;
  script.table[{}] = {0.1, 0.4, 0.4, 0.05, 0.05};
  script.table[{1}] = {0.5, 0.2, 0.1, 0.1, 0.1};
  script.table[{2}] = {0.5, 0.2, 0.1, 0.1, 0.1};
  // [1 EOS] and [2 EOS] both .2, finished in that order (lower flattened index first). HF would list [2]
  // first.
  auto result = run_one(script, 10, make_options(2, 2, 0.0f));
  REQUIRE(result.size() == 2);
  CHECK(result[0].score == result[1].score);
  check_hypothesis(result[0], {1}, ln(0.2));
  check_hypothesis(result[1], {2}, ln(0.2));
}

TEST_CASE("log-probabilities match a double precision log_softmax", "[search]") {
  for (int vocab_size : {1, 7, 64, 1000, 4099}) {
    for (float spread : {0.01f, 5.0f, 60.0f, 200.0f}) {
      for (bool renormalize : {false, true}) {
        INFO("vocab " << vocab_size << " spread " << spread << " renormalize " << renormalize);
        std::vector<float> row(vocab_size);
        for (int i = 0; i < vocab_size; ++i) {
          row[i] =
              static_cast<float>((mix(i * 31 + vocab_size) >> 11) * 0x1.0p-53 * spread - spread / 2 + 1000.0);
        }
        if (vocab_size > 3) row[3] = -INFINITY;  // a model may emit -inf logits
        SearchOptions o = make_options(1, 1, 1.0f);
        o.renormalize = renormalize;
        if (vocab_size > 2) o.banned = {0, 2, 0};  // repeated ids are fine
        std::vector<bool> banned(vocab_size, false);
        for (int32_t id : o.banned) banned[id] = true;

        std::vector<double> expected(row.begin(), row.end());
        auto log_softmax = [&](bool skip_banned) {
          double m = -INFINITY, sum = 0;
          for (int i = 0; i < vocab_size; ++i) m = (skip_banned && banned[i]) ? m : std::max(m, expected[i]);
          for (int i = 0; i < vocab_size; ++i)
            sum += (skip_banned && banned[i]) ? 0.0 : std::exp(expected[i] - m);
          for (double& x : expected) x -= m + std::log(sum);
        };
        log_softmax(false);
        if (renormalize) log_softmax(true);

        core::search_detail::LogProbs(vocab_size, o).apply(row.data(), false);
        double total = 0;
        for (int i = 0; i < vocab_size; ++i) {
          if (banned[i] || i == 3) {
            CHECK(row[i] == -INFINITY);
            continue;
          }
          CHECK(std::abs(row[i] - expected[i]) <= 1e-6 + 1e-6 * std::abs(expected[i]));
          total += std::exp(static_cast<double>(row[i]));
        }
        if (renormalize) CHECK(total == Approx(1.0).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("log_softmax in one pass: leading -inf blocks, a max that grows in every block", "[search]") {
  // The shift is summed against a running max and rescaled when it grows: rows built to take that path at
  // every block, after blocks that hold nothing but -inf.
  for (int vocab_size : {200, 1000}) {
    std::vector<float> row(vocab_size);
    for (int i = 0; i < vocab_size; ++i)
      row[i] = i < 130 ? -INFINITY : 0.05f * static_cast<float>(i % 97) + 0.01f * i;
    std::vector<double> expected(row.begin(), row.end());
    double m = -INFINITY, sum = 0;
    for (double x : expected) m = std::max(m, x);
    for (double x : expected) sum += std::exp(x - m);
    SearchOptions o = make_options(1, 1, 1.0f);
    core::search_detail::LogProbs(vocab_size, o).apply(row.data(), false);
    for (int i = 0; i < vocab_size; ++i) {
      INFO("vocab " << vocab_size << " id " << i);
      if (i < 130) {
        CHECK(row[i] == -INFINITY);
      } else {
        CHECK(std::abs(row[i] - (expected[i] - m - std::log(sum))) <= 2e-6);
      }
    }
  }
}

TEST_CASE("invalid options throw", "[search]") {
  CheckedDecoder decoder(kVocab, Script{});
  auto throws = [&](SearchOptions o, std::vector<int> max_lengths = {5}) {
    CHECK_THROWS_AS(core::search(decoder, max_lengths, o), std::invalid_argument);
  };
  throws(make_options(0, 1, 1.0f));
  throws(make_options(2, 0, 1.0f));
  throws(make_options(2, 3, 1.0f));
  throws(make_options(1, 1, 1.0f), {5, 0, 3});
  SearchOptions o = make_options(1, 1, 1.0f);
  o.eos_id = kVocab;
  throws(o);
  o = make_options(1, 1, 1.0f);
  o.banned = {-1};
  throws(o);
  o.banned = {0, 1, 2, 3, 4, 5};
  throws(o);
  CheckedDecoder empty_vocab(0, Script{});
  CHECK_THROWS_AS(core::search(empty_vocab, {5}, make_options(1, 1, 1.0f)), std::invalid_argument);
  CHECK(core::search(decoder, {}, make_options(2, 2, 1.0f)).empty());
}
