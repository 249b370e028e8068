// Tests of the loop guards (repetition penalty, no-repeat n-grams) in every search, against the same search
// over a model whose logits a plain reference guard has already changed; and of what a hypothesis reports
// besides its tokens (per-token scores, raw score, the length-limit mark).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

#include "core/search.h"
#include "search_test_support.h"

namespace {

using Tokens = std::vector<int32_t>;
using search_test::Model;

constexpr int32_t kEos = 0;
constexpr int32_t kStart = 7;
constexpr int kVocab = 8;  // 0 EOS, 1..6 words, 7 start (banned)

using search_test::mix;

// A model that likes to loop: logits from a hash of (sentence, last token), so the same token tends to
// follow the same token again; some logits negative, some positive; EOS unlikely until late.
Model loopy_model(uint64_t salt) {
  return [salt](int sentence, const Tokens& prefix, float* logits) {
    const uint64_t last = prefix.empty() ? 99 : static_cast<uint64_t>(prefix.back());
    const uint64_t h = mix(salt ^ mix(static_cast<uint64_t>(sentence) * 131 + last));
    for (int t = 0; t < kVocab; ++t)
      logits[t] = static_cast<float>((mix(h + t) >> 11) * 0x1.0p-53 * 8.0 - 3.0);
    logits[kEos] = -4.0f + 0.4f * static_cast<float>(prefix.size());
  };
}

// The guards written plainly: each distinct earlier token penalised once; every token that follows an
// earlier occurrence of the last n - 1 tokens banned.
Model reference_guarded(Model model, float penalty, int ngram) {
  return [model, penalty, ngram](int sentence, const Tokens& prefix, float* logits) {
    model(sentence, prefix, logits);
    if (penalty != 1.0f) {
      for (int32_t t : std::set<int32_t>(prefix.begin(), prefix.end()))
        logits[t] = logits[t] < 0.0f ? logits[t] * penalty : logits[t] / penalty;
    }
    const int n = static_cast<int>(prefix.size());
    if (ngram > 0 && n >= ngram) {
      for (int start = 0; start + ngram <= n; ++start) {
        bool same = true;
        for (int j = 0; j < ngram - 1; ++j) same = same && prefix[start + j] == prefix[n - ngram + 1 + j];
        if (same) logits[prefix[start + ngram - 1]] = -std::numeric_limits<float>::infinity();
      }
    }
  };
}

core::SearchOptions base_options(int beam_size, int n_best) {
  core::SearchOptions o;
  o.beam_size = beam_size;
  o.n_best = n_best;
  o.eos_id = kEos;
  o.start_id = kStart;
  o.banned = {kStart};
  return o;
}

core::SearchOptions sampling_options(int n_samples, int n_sentences) {
  core::SearchOptions o = base_options(1, n_samples);
  o.sampling.enabled = true;
  o.sampling.seed = 42;
  for (int s = 0; s < n_sentences; ++s) o.sentence_keys.push_back(static_cast<uint64_t>(s));
  return o;
}

// The search kinds: greedy, beam 3 (n-best 2), sampling (2 samples per sentence).
std::vector<core::SearchOptions> search_kinds(int n_sentences) {
  return {base_options(1, 1), base_options(3, 2), sampling_options(2, n_sentences)};
}

const char* kind_name(const core::SearchOptions& o) {
  return o.sampling.enabled ? "sampling" : o.beam_size == 1 ? "greedy" : "beam";
}

std::vector<std::vector<core::Hypothesis>> run(const Model& model, const std::vector<int>& max_lengths,
                                               const core::SearchOptions& o) {
  search_test::ModelDecoder decoder(kVocab, model);
  return core::search(decoder, max_lengths, o);
}

// How often the commonest n-gram occurs in `tokens`.
int most_repeats(const Tokens& tokens, int n) {
  int most = 0;
  for (size_t i = 0; i + n <= tokens.size(); ++i) {
    int count = 0;
    for (size_t j = 0; j + n <= tokens.size(); ++j)
      count += std::equal(tokens.begin() + i, tokens.begin() + i + n, tokens.begin() + j) ? 1 : 0;
    most = std::max(most, count);
  }
  return most;
}

}  // namespace

TEST_CASE("loop guards equal a plain reference in every search", "[search][guards]") {
  const std::vector<int> max_lengths = {20, 14, 25, 9, 30, 18};
  const int n = static_cast<int>(max_lengths.size());
  int changed = 0;  // cases where the guard changed some output: the comparison is not vacuous
  for (const core::SearchOptions& kind : search_kinds(n)) {
    for (float penalty : {1.0f, 1.3f, 2.5f}) {
      for (int ngram : {0, 1, 2, 3}) {
        for (uint64_t salt : {1, 2, 3}) {
          INFO(kind_name(kind) << " penalty " << penalty << " ngram " << ngram << " salt " << salt);
          core::SearchOptions guarded = kind;
          guarded.repetition_penalty = penalty;
          guarded.no_repeat_ngram_size = ngram;
          const auto got = run(loopy_model(salt), max_lengths, guarded);
          const auto expected = run(reference_guarded(loopy_model(salt), penalty, ngram), max_lengths, kind);
          const auto unguarded = run(loopy_model(salt), max_lengths, kind);
          REQUIRE(got.size() == expected.size());
          for (size_t s = 0; s < got.size(); ++s) {
            REQUIRE(got[s].size() == expected[s].size());
            for (size_t k = 0; k < got[s].size(); ++k) {
              CHECK(got[s][k].tokens == expected[s][k].tokens);
              CHECK(got[s][k].score == expected[s][k].score);
              if (got[s][k].tokens != unguarded[s][k].tokens) ++changed;
              // Without EOS forced at the limit, no n-gram of the guarded size occurs twice.
              if (ngram > 0 && !got[s][k].length_limit) CHECK(most_repeats(got[s][k].tokens, ngram) <= 1);
            }
          }
        }
      }
    }
  }
  CHECK(changed > 50);
}

TEST_CASE("guards off give exactly the unguarded search", "[search][guards]") {
  const std::vector<int> max_lengths = {20, 14, 25};
  for (const core::SearchOptions& kind : search_kinds(3)) {
    INFO(kind_name(kind));
    core::SearchOptions off = kind;
    off.repetition_penalty = 1.0f;
    off.no_repeat_ngram_size = 0;
    const auto a = run(loopy_model(5), max_lengths, kind);
    const auto b = run(loopy_model(5), max_lengths, off);
    for (size_t s = 0; s < a.size(); ++s) {
      for (size_t k = 0; k < a[s].size(); ++k) {
        CHECK(a[s][k].tokens == b[s][k].tokens);
        CHECK(a[s][k].score == b[s][k].score);
      }
    }
  }
}

TEST_CASE("a looping model stops looping with no-repeat-ngram 3", "[search][guards]") {
  // Always "1 2 1 2 ...": the guard must break the cycle, and the output stays free of repeated trigrams.
  const Model cycle = [](int, const Tokens& prefix, float* logits) {
    std::fill(logits, logits + kVocab, 0.0f);
    logits[prefix.empty() || prefix.back() == 2 ? 1 : 2] = 5.0f;
    logits[kEos] = prefix.size() >= 8 ? 6.0f : -5.0f;
  };
  for (const core::SearchOptions& kind : search_kinds(1)) {
    INFO(kind_name(kind));
    const auto loops = run(cycle, {40}, kind);
    CHECK(most_repeats(loops[0][0].tokens, 3) > 1);
    core::SearchOptions guarded = kind;
    guarded.no_repeat_ngram_size = 3;
    const auto fixed = run(cycle, {40}, guarded);
    for (const core::Hypothesis& h : fixed[0]) CHECK(most_repeats(h.tokens, 3) <= 1);
  }
}

TEST_CASE("hypotheses carry token scores summing to the raw score, and the length-limit mark",
          "[search][guards]") {
  const std::vector<int> max_lengths = {4, 30, 6, 40};
  for (const core::SearchOptions& kind : search_kinds(4)) {
    for (float length_penalty : {0.0f, 1.0f, 1.5f}) {
      INFO(kind_name(kind) << " length penalty " << length_penalty);
      core::SearchOptions o = kind;
      o.length_penalty = length_penalty;
      const auto result = run(loopy_model(9), max_lengths, o);
      bool limited = false, free = false;
      for (size_t s = 0; s < result.size(); ++s) {
        for (const core::Hypothesis& h : result[s]) {
          REQUIRE(h.token_scores.size() == h.tokens.size() + 1);  // EOS's last
          const double sum = std::accumulate(h.token_scores.begin(), h.token_scores.end(), 0.0);
          CHECK(h.raw_score == Approx(sum).margin(1e-4));
          const int length = static_cast<int>(h.tokens.size()) + 1;
          CHECK(h.score == Approx(h.raw_score / std::pow(length, length_penalty)).margin(1e-4));
          CHECK(h.length_limit == (length == max_lengths[s]));
          if (h.length_limit) CHECK(h.token_scores.back() == 0.0f);  // EOS forced: log-probability 0
          limited = limited || h.length_limit;
          free = free || !h.length_limit;
        }
      }
      CHECK(limited);  // the short limits cut sentences 0 and 2
      CHECK(free);
    }
  }
}

TEST_CASE("loop guard options are checked", "[search][guards]") {
  core::SearchOptions o = base_options(1, 1);
  o.repetition_penalty = 0.0f;
  CHECK_THROWS_WITH(run(loopy_model(1), {5}, o), Catch::Contains("repetition_penalty"));
  o.repetition_penalty = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(run(loopy_model(1), {5}, o), Catch::Contains("repetition_penalty"));
  o = base_options(1, 1);
  o.no_repeat_ngram_size = -1;
  CHECK_THROWS_WITH(run(loopy_model(1), {5}, o), Catch::Contains("no_repeat_ngram_size"));
}
