// Tests of core/search's groups of rows: logits are asked for at most the decoder's logit_rows() rows at a
// time (or one sentence's beams), and a batch searched in several groups per step gives exactly what the same
// sentences give when each step fits in one group.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "core/search.h"

namespace {

using Tokens = std::vector<int32_t>;
constexpr int32_t kEos = 0;
constexpr int32_t kStart = 1;  // banned
constexpr int kVocab = 128;    // beam 50 needs 2 x 50 candidates

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Logits from a hash of (sentence key, tokens so far); EOS grows likelier with length so lengths vary.
// Checks that each step's rows are read in order, each once, and records the most rows of one call.
class GroupedDecoder : public core::DecoderStep {
 public:
  GroupedDecoder(std::vector<int> keys, int group_rows) : group_rows_(group_rows), keys_(std::move(keys)) {}
  int logit_rows() const override { return group_rows_; }
  int vocab_size() const override { return kVocab; }
  void start(int n_sentences) override {
    REQUIRE(n_sentences == static_cast<int>(keys_.size()));
    rows_.assign(n_sentences, {});
    sentence_of_row_.clear();
    stepped_ = read_ = 0;
  }
  void select_rows(const std::vector<int>& src_rows) override {
    REQUIRE(read_ == stepped_);
    std::vector<Tokens> selected;
    for (int r : src_rows) selected.push_back(rows_.at(r));
    rows_ = selected;
  }
  void step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
            int position) override {
    REQUIRE(read_ == stepped_);
    REQUIRE(tokens.size() == rows_.size());
    for (size_t r = 0; r < rows_.size(); ++r) {
      if (position > 0) rows_[r].push_back(tokens[r]);
    }
    sentence_of_row_ = sentence_of_row;
    stepped_ = static_cast<int>(rows_.size());
    read_ = 0;
    ++steps;
  }
  void logits(int first_row, int n_rows, float* out) override {
    REQUIRE(first_row == read_);
    REQUIRE(n_rows >= 1);
    REQUIRE(first_row + n_rows <= stepped_);
    for (int r = 0; r < n_rows; ++r) {
      const int row = first_row + r;
      uint64_t h = mix(static_cast<uint64_t>(keys_[sentence_of_row_[row]]) + 12345);
      for (int32_t t : rows_[row]) h = mix(h ^ static_cast<uint64_t>(t));
      float* logits = out + static_cast<size_t>(r) * kVocab;
      for (int t = 0; t < kVocab; ++t) logits[t] = static_cast<float>((mix(h + t) >> 11) * 0x1.0p-53 * 6.0);
      logits[kEos] += 0.4f * static_cast<float>(rows_[row].size()) - 1.0f;
    }
    read_ += n_rows;
    max_logit_rows = std::max(max_logit_rows, n_rows);
    ++logit_calls;
  }

  int max_logit_rows = 0;  // most rows of one logits() call
  int logit_calls = 0;
  int steps = 0;

 private:
  int group_rows_;
  std::vector<int> keys_;  // sentence -> the model's sentence, so a sub-batch decodes like the batch
  std::vector<Tokens> rows_;
  std::vector<int> sentence_of_row_;
  int stepped_ = 0, read_ = 0;  // rows of the last step, and how many of them logits() has read
};

struct Mode {
  const char* name;
  int beam_size;
  int n_best;
  bool sampling;
  int rows_per_sentence() const { return sampling ? n_best : beam_size; }
};

const Mode kModes[] = {{"greedy", 1, 1, false},
                       {"beam 4", 4, 4, false},
                       {"beam 5", 5, 3, false},
                       {"beam 50", 50, 2, false},
                       {"sampling x3", 1, 3, true}};

core::SearchOptions options_for(const Mode& mode, const std::vector<int>& keys) {
  core::SearchOptions o;
  o.beam_size = mode.beam_size;
  o.n_best = mode.n_best;
  o.eos_id = kEos;
  o.start_id = kStart;
  o.banned = {kStart};
  if (mode.sampling) {
    o.sampling.enabled = true;
    o.sampling.top_k = 20;
    o.sampling.seed = 5;
    o.sentence_keys.assign(keys.begin(), keys.end());
  }
  return o;
}

std::vector<int> max_lengths_of(const std::vector<int>& keys) {
  std::vector<int> lengths;
  for (int key : keys) lengths.push_back(1 + static_cast<int>(mix(static_cast<uint64_t>(key) * 7) % 20));
  return lengths;
}

std::vector<int> range(int first, int n) {
  std::vector<int> keys(n);
  for (int i = 0; i < n; ++i) keys[i] = first + i;
  return keys;
}

}  // namespace

// The default bound and one that no beam width divides.
constexpr int kBounds[] = {core::DecoderStep::kLogitRows, 7};

TEST_CASE("logits are computed for at most the decoder's logit_rows() rows at a time", "[search]") {
  for (const Mode& mode : kModes)
    for (const int bound : kBounds) {
      CAPTURE(mode.name, bound);
      const std::vector<int> keys = range(0, 100);
      GroupedDecoder decoder(keys, bound);
      core::search(decoder, max_lengths_of(keys), options_for(mode, keys));
      // A group holds whole sentences in beam search, so one sentence's beams even beyond the bound.
      CHECK(decoder.max_logit_rows <= std::max(bound, mode.beam_size));
      // 100 sentences' rows do not fit in one group: the first steps take several.
      CHECK(decoder.logit_calls > decoder.steps);
    }
}

TEST_CASE("a search in several groups equals the same sentences in one group each", "[search]") {
  for (const Mode& mode : kModes)
    for (const int bound : kBounds) {
      CAPTURE(mode.name, bound);
      const std::vector<int> keys = range(0, 100);
      GroupedDecoder decoder(keys, bound);
      const auto together = core::search(decoder, max_lengths_of(keys), options_for(mode, keys));
      REQUIRE(decoder.logit_calls > decoder.steps);
      // Sub-batches small enough that every step is one group.
      const int chunk = std::max(1, bound / mode.rows_per_sentence());
      for (int first = 0; first < 100; first += chunk) {
        const std::vector<int> sub = range(first, std::min(chunk, 100 - first));
        GroupedDecoder sub_decoder(sub, bound);
        const auto alone = core::search(sub_decoder, max_lengths_of(sub), options_for(mode, sub));
        CHECK(sub_decoder.logit_calls == sub_decoder.steps);
        for (size_t i = 0; i < sub.size(); ++i) {
          const auto& expected = alone[i];
          const auto& got = together[first + i];
          CAPTURE(first + i);
          REQUIRE(got.size() == expected.size());
          for (size_t h = 0; h < got.size(); ++h) {
            CHECK(got[h].tokens == expected[h].tokens);
            CHECK(got[h].score == expected[h].score);
          }
        }
      }
    }
}
