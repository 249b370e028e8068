// Tests of the output layer in one pass (core/output_scan.h): on random logits full of ties and near-ties,
// its selections are select_top's over the two-pass prepared rows, and greedy and beam search give exactly
// the hypotheses of the two-pass search, whether the decoder offers its columns or not.
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "core/output_scan.h"
#include "core/search.h"
#include "core/search_internal.h"
#include "core/thread_team.h"

namespace {

using core::Hypothesis;
using core::SearchOptions;
using core::search_detail::Candidate;
using core::search_detail::OutputScan;
using Tokens = std::vector<int32_t>;

constexpr int32_t kEos = 0;
constexpr int32_t kStart = 1;  // banned
// Three column blocks, the last short and not a whole scan block.
constexpr int kVocab = 2 * core::DecoderStep::kLogitColumns + 37;

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A logit from a hash: mostly spread over [0, 9), and about one id in 1,024 on 10 or 9.5 or a float above
// either: exact ties near the top of a row, and ties once a log-probability is rounded.
float tie_prone_logit(uint64_t h) {
  switch ((h >> 8) % 4096) {
    case 0:
      return 10.0f;
    case 1:
      return std::nextafter(10.0f, 100.0f);
    case 2:
      return 9.5f;
    case 3:
      return std::nextafter(9.5f, 100.0f);
    default:
      return static_cast<float>((h >> 20) % 90000) * 1e-4f;
  }
}

// Logits from a hash of (sentence, tokens so far); EOS grows likelier with length so lengths vary. Offers
// its columns or not; counts the calls of each kind.
class TieDecoder : public core::DecoderStep {
 public:
  explicit TieDecoder(bool offer_columns) : offer_columns_(offer_columns) {}
  int vocab_size() const override { return kVocab; }
  void start(int n_sentences) override {
    rows_.assign(n_sentences, {});
    for (int s = 0; s < n_sentences; ++s) rows_[s].push_back(s);
  }
  void select_rows(const std::vector<int>& src_rows) override {
    std::vector<Tokens> selected;
    for (int r : src_rows) selected.push_back(rows_.at(r));
    rows_ = selected;
  }
  void step(const std::vector<int32_t>& tokens, const std::vector<int>&, int position) override {
    for (size_t r = 0; r < rows_.size(); ++r) {
      if (position > 0) rows_[r].push_back(tokens[r]);
    }
  }
  void logits(int first_row, int n_rows, float* out) override {
    for (int r = 0; r < n_rows; ++r)
      row_logits(first_row + r, 0, kVocab, out + static_cast<size_t>(r) * kVocab);
    row_reads += n_rows;
  }
  bool offers_logit_columns() const override { return offer_columns_; }
  // Called from a team's threads at once: no Catch assertions here, a flag the test checks afterwards.
  void logit_columns(int first_row, int n_rows, int first, int n, float* out) override {
    if (!offer_columns_ || first % kLogitColumns != 0 || first_row + n_rows > static_cast<int>(rows_.size()))
      misuse = true;
    for (int r = 0; r < n_rows; ++r) row_logits(first_row + r, first, n, out + static_cast<size_t>(r) * n);
    ++column_calls;
  }

  int row_reads = 0;  // rows read whole, by logits()
  std::atomic<int> column_calls{0};
  std::atomic<bool> misuse{false};

 private:
  void row_logits(int row, int first, int n, float* out) const {
    uint64_t h = 12345;
    for (int32_t t : rows_[row]) h = mix(h ^ static_cast<uint64_t>(t));
    for (int i = 0; i < n; ++i) out[i] = tie_prone_logit(mix(h + first + i));
    const int generated = static_cast<int>(rows_[row].size()) - 1;
    if (first == 0) out[kEos] += 0.8f * static_cast<float>(generated) - 6.0f;
  }

  bool offer_columns_;
  std::vector<Tokens> rows_;  // the sentence, then the tokens generated so far
};

bool same_float(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void require_same(const std::vector<std::vector<Hypothesis>>& a,
                  const std::vector<std::vector<Hypothesis>>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t s = 0; s < a.size(); ++s) {
    REQUIRE(a[s].size() == b[s].size());
    for (size_t i = 0; i < a[s].size(); ++i) {
      CHECK(a[s][i].tokens == b[s][i].tokens);
      CHECK(same_float(a[s][i].score, b[s][i].score));
      CHECK(same_float(a[s][i].raw_score, b[s][i].raw_score));
      CHECK(a[s][i].length_limit == b[s][i].length_limit);
      REQUIRE(a[s][i].token_scores.size() == b[s][i].token_scores.size());
      for (size_t t = 0; t < a[s][i].token_scores.size(); ++t)
        CHECK(same_float(a[s][i].token_scores[t], b[s][i].token_scores[t]));
    }
  }
}

SearchOptions options_for(int beam, bool renormalize) {
  SearchOptions o;
  o.beam_size = beam;
  o.n_best = beam;
  o.eos_id = kEos;
  o.start_id = kStart;
  o.banned = {kStart, 5, core::DecoderStep::kLogitColumns + 6};
  o.renormalize = renormalize;
  return o;
}

// Rows of logits from a table, served by columns.
class TableDecoder : public core::DecoderStep {
 public:
  explicit TableDecoder(std::vector<float> table) : table_(std::move(table)) {}
  int vocab_size() const override { return kVocab; }
  void start(int) override {}
  void select_rows(const std::vector<int>&) override {}
  void step(const std::vector<int32_t>&, const std::vector<int>&, int) override {}
  void logits(int, int, float*) override { FAIL("the scan reads columns"); }
  bool offers_logit_columns() const override { return true; }
  void logit_columns(int first_row, int n_rows, int first, int n, float* out) override {
    for (int r = 0; r < n_rows; ++r)
      std::memcpy(out + static_cast<size_t>(r) * n,
                  &table_[static_cast<size_t>(first_row + r) * kVocab + first], n * sizeof(float));
  }

 private:
  std::vector<float> table_;
};

}  // namespace

TEST_CASE("output scan: selections equal select_top's on tie-prone rows", "[search][output_scan]") {
  constexpr int kRows = 4;
  const float cum_logprobs[kRows] = {0.0f, -3.7f, -25.3f, -25.3f};
  int proved = 0, unproved = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    for (bool renormalize : {true, false}) {
      const SearchOptions options = options_for(4, renormalize);
      const core::search_detail::LogProbs log_probs(kVocab, options);
      std::vector<float> table(static_cast<size_t>(kRows) * kVocab);
      for (size_t i = 0; i < table.size(); ++i) table[i] = tie_prone_logit(mix(seed * 1000003 + i));
      TableDecoder decoder(table);
      for (int k : {1, 2, 8}) {
        // Rows by rule: free, or (k = 1 only) a forced token, or the forced last EOS.
        for (int variant = 0; variant < 3; ++variant) {
          if (variant == 1 && k != 1) continue;
          OutputScan scan(options, kVocab, kRows, 9);
          const int32_t forced = static_cast<int32_t>(mix(seed) % kVocab);
          const int32_t rule = variant == 0   ? OutputScan::kFree
                               : variant == 1 ? forced
                                              : OutputScan::kForceEos;
          for (int r = 0; r < kRows; ++r) scan.rule(r) = rule;
          scan.scan(decoder, kRows);
          // Two-pass reference: every row prepared in full, then select_top over them.
          std::vector<float> prepared = table;
          std::vector<double> shifts(kRows);
          std::vector<float> block_maxes(static_cast<size_t>(kRows) *
                                         core::search_detail::scan_blocks(kVocab));
          for (int r = 0; r < kRows; ++r) {
            shifts[r] = log_probs.prepare(&prepared[static_cast<size_t>(r) * kVocab], variant == 2,
                                          &block_maxes[r * core::search_detail::scan_blocks(kVocab)],
                                          variant == 1 ? forced : -1);
            if (variant != 2) CHECK(shifts[r] == scan.shift(r));
          }
          const int n_rows = variant == 1 ? 1 : kRows;  // a forced token has one row
          std::vector<Candidate> expected, got;
          expected.reserve(n_rows * k);
          got.reserve(n_rows * k);
          core::search_detail::select_top(prepared.data(), block_maxes.data(), shifts.data(), cum_logprobs,
                                          n_rows, kVocab, k, expected);
          if (!scan.select(0, n_rows, cum_logprobs, k, got)) {
            ++unproved;
            continue;
          }
          ++proved;
          REQUIRE(got.size() == expected.size());
          for (size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].index == expected[i].index);
            CHECK(same_float(got[i].cum_logprob, expected[i].cum_logprob));
          }
        }
      }
    }
  }
  INFO("proved " << proved << ", left to the two-pass way " << unproved);
  CHECK(proved > 2 * unproved);
  CHECK(unproved > 0);
}

TEST_CASE("output scan: greedy and beam search equal the two-pass search", "[search][output_scan]") {
  int two_pass_reads = 0;              // rows the one-pass search could not prove and computed again
  const int threads = GENERATE(1, 2);  // 2: the rows in two shares, one per thread
  core::ThreadTeam team(threads);
  for (int beam : {1, 4, 5}) {
    for (bool renormalize : {true, false}) {
      for (bool prefixes : {false, true}) {
        SearchOptions options = options_for(beam, renormalize);
        // 18 sentences: greedy too has core's kScanRowsPerThread rows per thread.
        const std::vector<int> max_lengths = {3, 9, 14, 14, 6, 20, 1, 11, 5, 16, 2, 8, 13, 7, 10, 4, 12, 9};
        if (prefixes) {
          options.prefixes.assign(max_lengths.size(), {});
          options.prefixes[1] = {7, 8};
          options.prefixes[3] = {kStart, 900, 2050};  // a banned id may be forced
        }
        TieDecoder two_pass(false), one_pass(true);
        const auto expected = core::search(two_pass, max_lengths, options);
        const auto got = core::search(one_pass, max_lengths, options);
        INFO("beam " << beam << (renormalize ? ", renormalize" : "") << (prefixes ? ", prefixes" : ""));
        require_same(got, expected);
        CHECK(one_pass.column_calls > 0);
        CHECK_FALSE(one_pass.misuse);
        CHECK(one_pass.row_reads < two_pass.row_reads / 4);
        two_pass_reads += one_pass.row_reads;
      }
    }
  }
  CHECK(two_pass_reads > 0);  // the ties took the way back too
}

TEST_CASE("output scan: loop guards keep the two-pass search", "[search][output_scan]") {
  SearchOptions options = options_for(4, true);
  options.no_repeat_ngram_size = 2;
  TieDecoder two_pass(false), one_pass(true);
  const std::vector<int> max_lengths = {9, 12, 7, 10};  // rows enough to scan without the guard
  require_same(core::search(one_pass, max_lengths, options), core::search(two_pass, max_lengths, options));
  CHECK(one_pass.column_calls == 0);
}

TEST_CASE("output scan: a few rows per thread keep the two-pass search", "[search][output_scan]") {
  // One sentence's 4 beams over 2 threads, and 8 greedy rows: below kScanRowsPerThread per thread, where
  // the two-pass products split the columns over the threads. 16 greedy rows on 2 threads do scan.
  core::ThreadTeam team(2);
  for (const auto& [beam, sentences, scans] : {std::tuple{4, 1, false}, {1, 8, false}, {1, 16, true}}) {
    INFO("beam " << beam << ", " << sentences << " sentences");
    const SearchOptions options = options_for(beam, false);
    TieDecoder two_pass(false), one_pass(true);
    const std::vector<int> max_lengths(sentences, 9);
    require_same(core::search(one_pass, max_lengths, options), core::search(two_pass, max_lengths, options));
    CHECK((one_pass.column_calls > 0) == scans);
  }
}

TEST_CASE("output scan: a rounding tie at the cut goes to the lower id", "[search][output_scan]") {
  // Id 7's logit is one float above id 3's: the scan keeps 7 first, but with a large enough running score
  // both round to one log-probability, and then id 3 ranks first.
  std::vector<float> row(kVocab, 0.0f);
  row[3] = 10.0f;
  row[7] = std::nextafter(10.0f, 100.0f);
  const SearchOptions options = options_for(1, true);
  TableDecoder decoder(row);
  OutputScan scan(options, kVocab, 1, 2);
  scan.rule(0) = OutputScan::kFree;
  scan.scan(decoder, 1);
  const double shift = scan.shift(0);
  float cum_logprob = 0.0f;
  for (float c = -1.0f; c > -1000.0f; c *= 1.37f) {
    if (c + core::search_detail::log_prob(row[3], shift) ==
        c + core::search_detail::log_prob(row[7], shift)) {
      cum_logprob = c;
      break;
    }
  }
  REQUIRE(cum_logprob != 0.0f);
  std::vector<Candidate> top;
  top.reserve(1);
  if (scan.select(0, 1, &cum_logprob, 1, top)) CHECK(top[0].index == 3);  // else: left to the two-pass way
  // The two-pass reference agrees that id 3 wins.
  std::vector<float> prepared = row;
  std::vector<float> block_maxes(core::search_detail::scan_blocks(kVocab));
  const core::search_detail::LogProbs log_probs(kVocab, options);
  const double two_pass_shift = log_probs.prepare(prepared.data(), false, block_maxes.data());
  CHECK(two_pass_shift == shift);
  std::vector<Candidate> expected;
  expected.reserve(1);
  core::search_detail::select_top(prepared.data(), block_maxes.data(), &two_pass_shift, &cum_logprob, 1,
                                  kVocab, 1, expected);
  CHECK(expected[0].index == 3);
}

TEST_CASE("output scan: a row with a NaN or an infinity gets no selection from the scan",
          "[search][output_scan]") {
  constexpr int kRows = 4;
  const float inf = std::numeric_limits<float>::infinity();
  const float bad[kRows] = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1.0f};  // the last: finite
  std::vector<float> table(static_cast<size_t>(kRows) * kVocab);
  for (size_t i = 0; i < table.size(); ++i) table[i] = tie_prone_logit(mix(7 * 1000003 + i));
  for (int r = 0; r < kRows; ++r) table[static_cast<size_t>(r) * kVocab + 1500] = bad[r];
  TableDecoder decoder(table);
  const SearchOptions options = options_for(1, false);
  OutputScan scan(options, kVocab, kRows, 3);
  for (int r = 0; r < kRows; ++r) scan.rule(r) = OutputScan::kFree;
  scan.scan(decoder, kRows);
  std::vector<Candidate> top;
  top.reserve(1);
  const float no_prefix = 0.0f;
  for (int r = 0; r < kRows; ++r) {
    INFO("row " << r);
    CHECK(scan.select(r, 1, &no_prefix, 1, top) == (r == kRows - 1));
  }
}
