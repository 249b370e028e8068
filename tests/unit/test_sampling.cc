// Tests of sampling (core/sampling.h) and forced target prefixes in core::search: toy decoders whose
// next-token distribution depends on the sentence and the tokens so far.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "core/sampling.h"
#include "core/search.h"
#include "search_test_support.h"

namespace {

using Tokens = std::vector<int32_t>;
constexpr int32_t kEos = 0;
constexpr int32_t kStart = 7;
constexpr int kVocab = 8;  // 0 EOS, 1..6 words, 7 start (banned)

// Next-token probabilities as a function of (sentence, tokens so far): a deterministic hash spread over
// the words, EOS more likely as the output grows.
void toy_logits(int sentence, const Tokens& prefix, float* logits) {
  uint32_t h = 2166136261u ^ static_cast<uint32_t>(sentence);
  for (int32_t t : prefix) h = (h ^ static_cast<uint32_t>(t)) * 16777619u;
  for (int i = 0; i < kVocab; ++i) {
    h = h * 1103515245u + 12345u;
    logits[i] = static_cast<float>((h >> 8) % 1000) / 400.0f;
  }
  logits[kEos] += 0.3f * static_cast<float>(prefix.size()) - 1.0f;
}

core::SearchOptions options(int beam_size = 1) {
  core::SearchOptions o;
  o.beam_size = beam_size;
  o.eos_id = kEos;
  o.start_id = kStart;
  o.banned = {kStart};
  return o;
}

core::SearchOptions sampling(int top_k, float top_p, float temperature, uint64_t seed, int n_sentences) {
  core::SearchOptions o = options();
  o.sampling.enabled = true;
  o.sampling.top_k = top_k;
  o.sampling.top_p = top_p;
  o.sampling.temperature = temperature;
  o.sampling.seed = seed;
  for (int s = 0; s < n_sentences; ++s) o.sentence_keys.push_back(s);
  return o;
}

std::vector<std::vector<core::Hypothesis>> run(const core::SearchOptions& o, int n_sentences,
                                               int max_length = 12) {
  search_test::ModelDecoder decoder(kVocab, toy_logits);
  return core::search(decoder, std::vector<int>(n_sentences, max_length), o);
}

std::vector<Tokens> tokens_of(const std::vector<std::vector<core::Hypothesis>>& result) {
  std::vector<Tokens> out;
  for (const auto& hyps : result)
    for (const auto& h : hyps) out.push_back(h.tokens);
  return out;
}

}  // namespace

TEST_CASE("sampling with top-k 1 equals greedy, tokens and scores", "[sampling]") {
  const auto greedy = run(options(), 6);
  for (float temperature : {0.5f, 1.0f, 3.0f}) {
    const auto sampled = run(sampling(1, 1.0f, temperature, 42, 6), 6);
    REQUIRE(sampled.size() == greedy.size());
    for (size_t s = 0; s < greedy.size(); ++s) {
      CHECK(sampled[s][0].tokens == greedy[s][0].tokens);
      CHECK(sampled[s][0].score == greedy[s][0].score);
    }
  }
}

TEST_CASE("the same seed samples the same, another seed differs", "[sampling]") {
  core::SearchOptions o = sampling(0, 1.0f, 1.5f, 7, 5);
  o.n_best = 4;
  const auto a = tokens_of(run(o, 5)), b = tokens_of(run(o, 5));
  CHECK(a == b);
  CHECK(a.size() == 20);
  o.sampling.seed = 8;
  CHECK(tokens_of(run(o, 5)) != a);
}

TEST_CASE("a sentence's samples do not depend on its batch", "[sampling]") {
  // Sentence keys 0..3 decoded together, then each alone (as if sorted into another batch).
  core::SearchOptions o = sampling(3, 0.9f, 1.0f, 11, 4);
  o.n_best = 3;
  const auto together = run(o, 4);
  for (int s = 0; s < 4; ++s) {
    core::SearchOptions alone = o;
    alone.sentence_keys = {static_cast<uint64_t>(s)};
    // The batch's sentence 0 is the model's sentence s.
    search_test::ModelDecoder decoder(
        kVocab, [s](int, const Tokens& prefix, float* logits) { toy_logits(s, prefix, logits); });
    const auto result = core::search(decoder, {12}, alone);
    CHECK(tokens_of(result) == tokens_of({together[s]}));
  }
}

TEST_CASE("n-best sampling returns independent samples, best first", "[sampling]") {
  core::SearchOptions o = sampling(0, 1.0f, 2.0f, 3, 1);
  o.n_best = 8;
  const auto result = run(o, 1)[0];
  REQUIRE(result.size() == 8);
  for (size_t i = 1; i < result.size(); ++i) CHECK(result[i - 1].score >= result[i].score);
  std::map<Tokens, int> distinct;
  for (const auto& h : result) ++distinct[h.tokens];
  CHECK(distinct.size() > 1);
}

TEST_CASE("token sampler: frequencies follow temperature, top-k and top-p", "[sampling]") {
  // log-probabilities of 0.5, 0.3, 0.15, 0.05
  const std::vector<double> p = {0.5, 0.3, 0.15, 0.05};
  std::vector<float> row;
  for (double x : p) row.push_back(static_cast<float>(std::log(x)));
  const auto frequencies = [&](int top_k, float top_p, float temperature) {
    core::SamplingOptions o;
    o.enabled = true;
    o.top_k = top_k;
    o.top_p = top_p;
    o.temperature = temperature;
    core::TokenSampler sampler(4, o);
    core::RandomStream random(123);
    std::vector<int> count(4, 0);
    const int n = 40000;
    for (int i = 0; i < n; ++i) ++count[sampler.draw(row.data(), 0.0, random)];
    std::vector<double> frequency;
    for (int c : count) frequency.push_back(static_cast<double>(c) / n);
    return frequency;
  };
  auto f = frequencies(0, 1.0f, 1.0f);
  for (int i = 0; i < 4; ++i) CHECK(f[i] == Approx(p[i]).margin(0.01));
  f = frequencies(2, 1.0f, 1.0f);  // renormalised over 0.5 and 0.3
  CHECK(f[0] == Approx(0.625).margin(0.01));
  CHECK(f[2] + f[3] == 0.0);
  f = frequencies(0, 0.7f, 1.0f);  // 0.5 < 0.7, 0.5 + 0.3 >= 0.7: the same two
  CHECK(f[0] == Approx(0.625).margin(0.01));
  CHECK(f[2] + f[3] == 0.0);
  f = frequencies(0, 0.5f, 1.0f);  // the first alone reaches 0.5
  CHECK(f[0] == 1.0);
  f = frequencies(0, 1.0f, 2.0f);  // p^(1/2), renormalised
  double z = 0;
  for (double x : p) z += std::sqrt(x);
  for (int i = 0; i < 4; ++i) CHECK(f[i] == Approx(std::sqrt(p[i]) / z).margin(0.01));
}

TEST_CASE("forced prefixes start the output, then the search continues", "[sampling]") {
  const std::vector<Tokens> prefixes = {{3, 3, 5}, {}, {6}};
  for (int beam_size : {1, 3}) {
    INFO("beam_size " << beam_size);
    core::SearchOptions o = options(beam_size);
    o.length_penalty = 0.0f;  // scores are plain sums of log-probabilities
    o.prefixes = prefixes;
    core::SearchOptions free = o;
    free.prefixes.clear();
    const auto free_run = run(free, 3);
    const auto result = run(o, 3);
    REQUIRE(result.size() == 3);
    for (int s = 0; s < 3; ++s) {
      REQUIRE(!result[s].empty());
      const Tokens& out = result[s][0].tokens;
      REQUIRE(out.size() >= prefixes[s].size());
      CHECK(Tokens(out.begin(), out.begin() + prefixes[s].size()) == prefixes[s]);
      // Score = the model's log-probabilities of every token, the prefix's included.
      Tokens history;
      double sum = 0;
      for (size_t i = 0; i <= out.size(); ++i) {
        float logits[kVocab];
        toy_logits(s, history, logits);
        logits[kStart] = -INFINITY;
        double z = 0;
        for (float l : logits) z += std::exp(static_cast<double>(l));
        const int32_t token = i < out.size() ? out[i] : kEos;
        sum += logits[token] - std::log(z);
        history.push_back(token);
      }
      CHECK(result[s][0].score == Approx(sum).epsilon(1e-5));
    }
    REQUIRE(free_run.size() == 3);
    REQUIRE(!free_run[0].empty());
    REQUIRE(!free_run[1].empty());
    CHECK(result[1][0].tokens == free_run[1][0].tokens);  // no prefix: unchanged
    CHECK(result[0][0].tokens != free_run[0][0].tokens);
  }
  // Sampling after a prefix; the prefix also holds a banned id, which it keeps.
  core::SearchOptions o = sampling(0, 1.0f, 1.0f, 5, 1);
  o.prefixes = {{kStart, 2}};
  o.n_best = 3;
  const auto samples = run(o, 1);  // named: a range-for over run(...)[0] would outlive the result
  REQUIRE(samples[0].size() == 3);
  for (const auto& h : samples[0]) {
    REQUIRE(h.tokens.size() >= 2);
    CHECK(Tokens(h.tokens.begin(), h.tokens.begin() + 2) == Tokens{kStart, 2});
  }
}

TEST_CASE("sampling and prefix options are checked", "[sampling]") {
  core::SearchOptions o = sampling(0, 1.0f, 1.0f, 1, 1);
  o.beam_size = 2;
  CHECK_THROWS_AS(run(o, 1), std::invalid_argument);
  o = sampling(0, 0.0f, 1.0f, 1, 1);
  CHECK_THROWS_AS(run(o, 1), std::invalid_argument);
  o = sampling(0, 1.0f, 0.0f, 1, 1);
  CHECK_THROWS_AS(run(o, 1), std::invalid_argument);
  o = options();
  o.prefixes = {{kEos}};
  CHECK_THROWS_AS(run(o, 1), std::invalid_argument);
  o.prefixes = {{1}, {2}};
  CHECK_THROWS_AS(run(o, 1), std::invalid_argument);
}
