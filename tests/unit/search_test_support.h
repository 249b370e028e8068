// Scripted decoder steps for the search tests (test_search*.cc): fixed log-probabilities per step, so
// each search decision can be checked by hand.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/search.h"
#include "core/search_internal.h"

namespace search_test {

inline uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

using core::Hypothesis;
using core::SearchOptions;
using Prefix = std::vector<int32_t>;
// Writes the next-token logits of `sentence` after `prefix` (generated tokens, start token excluded).
using Model = std::function<void(int sentence, const Prefix& prefix, float* logits)>;

constexpr int32_t kEos = 0;
constexpr int32_t kPad = 5;  // also the decoder start token, as in Marian
constexpr int kVocab = 6;    // 0 EOS, 1..4 words, 5 pad

// Logits from `model` for each row's sentence and prefix; rows follow select_rows like a real decoder's
// caches. For the tests of what a search computes; CheckedDecoder also checks how it calls the decoder.
class ModelDecoder : public core::DecoderStep {
 public:
  ModelDecoder(int vocab_size, Model model) : vocab_size_(vocab_size), model_(std::move(model)) {}
  int vocab_size() const override { return vocab_size_; }
  void start(int n_sentences) override { rows_.assign(n_sentences, {}); }
  void select_rows(const std::vector<int>& src_rows) override {
    std::vector<Prefix> selected;
    for (int r : src_rows) selected.push_back(rows_.at(r));
    rows_ = selected;
  }
  void step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
            int position) override {
    REQUIRE(tokens.size() == rows_.size());
    logits_.resize(rows_.size() * vocab_size_);
    for (size_t r = 0; r < rows_.size(); ++r) {
      if (position > 0) rows_[r].push_back(tokens[r]);
      model_(sentence_of_row[r], rows_[r], &logits_[r * vocab_size_]);
    }
  }
  void logits(int first_row, int n_rows, float* out) override {
    REQUIRE(first_row >= 0);
    REQUIRE(static_cast<size_t>(first_row + n_rows) * vocab_size_ <= logits_.size());
    std::copy_n(&logits_[static_cast<size_t>(first_row) * vocab_size_],
                static_cast<size_t>(n_rows) * vocab_size_, out);
  }

 private:
  int vocab_size_;
  Model model_;
  std::vector<Prefix> rows_;
  std::vector<float> logits_;  // [rows, vocab] of the last step
};

// Fails the test on any misuse of the DecoderStep contract; tracks each row's sentence and prefix itself.
class CheckedDecoder : public core::DecoderStep {
 public:
  CheckedDecoder(int vocab_size, Model model, int max_rows_per_sentence = 1)
      : vocab_size_(vocab_size), model_(std::move(model)), max_rows_per_sentence_(max_rows_per_sentence) {}

  int vocab_size() const override { return vocab_size_; }
  void start(int n_sentences) override {
    rows_.clear();
    for (int s = 0; s < n_sentences; ++s) rows_.push_back({s, {}});
    steps_of_sentence.assign(n_sentences, 0);
    next_position_ = 0;
    rows_stepped = 0;
    last_step_rows_ = logit_rows_done_ = 0;
  }
  void select_rows(const std::vector<int>& src_rows) override {
    if (logit_rows_done_ != last_step_rows_) FAIL("select_rows: the last step's logits not all read");
    std::vector<Row> selected;
    for (int r : src_rows) {
      if (r < 0 || r >= static_cast<int>(rows_.size())) FAIL("select_rows: invalid row " << r);
      selected.push_back(rows_[r]);
    }
    rows_ = selected;
  }
  void step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
            int position) override {
    if (logit_rows_done_ != last_step_rows_) FAIL("step: the last step's logits not all read");
    if (position != next_position_++) FAIL("step: position " << position);
    if (rows_.empty() || tokens.size() != rows_.size() || sentence_of_row.size() != rows_.size())
      FAIL("step: row count mismatch");
    if (position == 0 && rows_.size() != steps_of_sentence.size())
      FAIL("step 0 must have one row per sentence");
    int rows_of_sentence = 0;
    for (size_t r = 0; r < rows_.size(); ++r) {
      Row& row = rows_[r];
      if (sentence_of_row[r] != row.sentence) FAIL("sentence_of_row[" << r << "] disagrees with select_rows");
      if (r > 0 && row.sentence < rows_[r - 1].sentence) FAIL("rows not in sentence order");
      rows_of_sentence = (r > 0 && row.sentence == rows_[r - 1].sentence) ? rows_of_sentence + 1 : 1;
      if (rows_of_sentence > max_rows_per_sentence_)
        FAIL("more rows than beams for sentence " << row.sentence);
      if (r == 0 || row.sentence != rows_[r - 1].sentence) ++steps_of_sentence[row.sentence];
      if (position == 0 && tokens[r] != kPad) FAIL("position 0 must feed the start token");
      if (position > 0 && tokens[r] == kEos) FAIL("a finished hypothesis is still decoded");
      if (position > 0) row.prefix.push_back(tokens[r]);
    }
    rows_stepped += static_cast<int>(rows_.size());
    last_step_rows_ = static_cast<int>(rows_.size());
    logit_rows_done_ = 0;
  }
  // Rows are asked for in order, each once per step.
  void logits(int first_row, int n_rows, float* out) override {
    if (first_row != logit_rows_done_ || n_rows < 1 || first_row + n_rows > last_step_rows_)
      FAIL("logits: rows " << first_row << " + " << n_rows << " out of order");
    for (int r = 0; r < n_rows; ++r) {
      const Row& row = rows_[first_row + r];
      model_(row.sentence, row.prefix, out + static_cast<size_t>(r) * vocab_size_);
    }
    logit_rows_done_ += n_rows;
    max_logit_rows = std::max(max_logit_rows, n_rows);
  }

  std::vector<int> steps_of_sentence;  // decoder steps that included the sentence
  int rows_stepped = 0;
  int max_logit_rows = 0;  // most rows asked for in one logits() call

 private:
  struct Row {
    int sentence;
    Prefix prefix;
  };
  int vocab_size_;
  Model model_;
  int max_rows_per_sentence_;
  std::vector<Row> rows_;
  int next_position_ = 0;
  int last_step_rows_ = 0;   // rows of the last step
  int logit_rows_done_ = 0;  // of which logits() has read this many
};

// logits = log(p): a table prefix -> probabilities of ids 0..4 (pad gets 0) or 0..5, with a fallback.
struct Script {
  std::map<Prefix, std::vector<double>> table;
  std::vector<double> fallback = {0.9, 0.025, 0.025, 0.025, 0.025};
  void operator()(int, const Prefix& prefix, float* logits) const {
    auto it = table.find(prefix);
    const std::vector<double>& p = it == table.end() ? fallback : it->second;
    for (int i = 0; i < kVocab; ++i)
      logits[i] = static_cast<float>(i < static_cast<int>(p.size()) ? std::log(p[i]) : -INFINITY);
  }
};

inline SearchOptions make_options(int beam_size, int n_best, float length_penalty,
                                  core::BeamRules rules = core::BeamRules::kHuggingFace) {
  SearchOptions options;
  options.beam_rules = rules;
  options.beam_size = beam_size;
  options.n_best = n_best;
  options.length_penalty = length_penalty;
  options.eos_id = kEos;
  options.start_id = kPad;
  return options;
}

// One sentence's search; `steps` gets the decoder steps it took, `rows` the rows they computed.
inline std::vector<Hypothesis> run_one(const Script& script, int max_length, const SearchOptions& options,
                                       int* steps = nullptr, int* rows = nullptr) {
  CheckedDecoder decoder(kVocab, script, options.beam_size);
  auto result = core::search(decoder, {max_length}, options);
  REQUIRE(result.size() == 1);
  if (steps) *steps = decoder.steps_of_sentence[0];
  if (rows) *rows = decoder.rows_stepped;
  return result[0];
}

inline void check_hypothesis(const Hypothesis& h, const Prefix& tokens, double score) {
  CHECK(h.tokens == tokens);
  CHECK(h.score == Approx(score).epsilon(1e-5));
}

inline double ln(double p) { return std::log(p); }

}  // namespace search_test
