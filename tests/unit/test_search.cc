// Tests of core/search: scripted toy decoders with hand-computed results, a Hugging Face style reference
// beam search (K copies scored [0, -1e9, ...], full sort) for random models, and row bookkeeping checks.
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

namespace {

using core::Hypothesis;
using core::SearchOptions;
using Prefix = std::vector<int32_t>;
// Writes the next-token logits of `sentence` after `prefix` (generated tokens, start token excluded).
using Model = std::function<void(int sentence, const Prefix& prefix, float* logits)>;

constexpr int32_t kEos = 0;
constexpr int32_t kPad = 5;  // also the decoder start token, as in Marian
constexpr int kVocab = 6;    // 0 EOS, 1..4 words, 5 pad

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

SearchOptions make_options(int beam_size, int n_best, float length_penalty) {
  SearchOptions options;
  options.beam_size = beam_size;
  options.n_best = n_best;
  options.length_penalty = length_penalty;
  options.eos_id = kEos;
  options.start_id = kPad;
  return options;
}

std::vector<Hypothesis> run_one(const Script& script, int max_length, const SearchOptions& options,
                                int* steps = nullptr) {
  CheckedDecoder decoder(kVocab, script, options.beam_size);
  auto result = core::search(decoder, {max_length}, options);
  REQUIRE(result.size() == 1);
  if (steps) *steps = decoder.steps_of_sentence[0];
  return result[0];
}

void check_hypothesis(const Hypothesis& h, const Prefix& tokens, double score) {
  CHECK(h.tokens == tokens);
  CHECK(h.score == Approx(score).epsilon(1e-5));
}

double ln(double p) { return std::log(p); }

}  // namespace

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

namespace {

uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr int kRandomVocab = 8;  // 0 EOS, 5 pad/start, the rest words

// Logits from a hash of (seed, prefix, token); EOS grows likelier with length so lengths vary.
Model random_model(std::vector<uint64_t> seeds) {
  return [seeds](int sentence, const Prefix& prefix, float* logits) {
    uint64_t h = mix(seeds[sentence]);
    for (int32_t t : prefix) h = mix(h ^ static_cast<uint64_t>(t));
    for (int t = 0; t < kRandomVocab; ++t) {
      logits[t] = static_cast<float>((mix(h + t) >> 11) * 0x1.0p-53 * 6.0 - 3.0);
    }
    logits[kEos] += 0.5f * static_cast<float>(prefix.size()) - 1.0f;
  };
}

}  // namespace

namespace {

// Hugging Face's algorithm written plainly, in double: K copies of the start scored [0, -1e9, ...], a full
// stable sort of all K*V candidates, BeamHypotheses, is_done, finalize. The one-row start of core::search
// only matches it when vocab - banned >= 2K.
std::vector<Hypothesis> reference_beam_search(const Model& model, int sentence, int max_length,
                                              const SearchOptions& o) {
  const int k = o.beam_size, v = kRandomVocab;
  struct Beam {
    Prefix prefix;
    double cum;
  };
  struct Done {
    Prefix tokens;
    double score;
  };
  std::vector<Beam> beams(k, Beam{{}, -1e9});
  beams[0].cum = 0;
  std::vector<Done> kept;
  double worst = 1e9;
  auto add = [&](const Prefix& tokens, double cum, int len) {
    const double score = cum / std::pow(len, o.length_penalty);
    if (static_cast<int>(kept.size()) >= k && !(score > worst)) return;
    kept.push_back({tokens, score});
    if (static_cast<int>(kept.size()) <= k) {
      worst = std::min(worst, score);
      return;
    }
    size_t w = 0;
    for (size_t i = 1; i < kept.size(); ++i) w = kept[i].score < kept[w].score ? i : w;
    kept.erase(kept.begin() + w);
    worst = kept[0].score;
    for (const Done& d : kept) worst = std::min(worst, d.score);
  };
  auto log_softmax = [](std::vector<double>& x) {
    const double m = *std::max_element(x.begin(), x.end());
    double sum = 0;
    for (double xi : x) sum += std::exp(xi - m);
    for (double& xi : x) xi = xi - m - std::log(sum);
  };
  for (int len = 1;; ++len) {
    std::vector<std::pair<double, int>> candidates;  // (cum, beam * v + token)
    for (int b = 0; b < k; ++b) {
      std::vector<float> logits(v);
      model(sentence, beams[b].prefix, logits.data());
      std::vector<double> lp(logits.begin(), logits.end());
      log_softmax(lp);
      for (int32_t id : o.banned) lp[id] = -INFINITY;
      if (o.renormalize) log_softmax(lp);
      if (len == max_length) lp.assign(v, -INFINITY), lp[o.eos_id] = 0;
      for (int t = 0; t < v; ++t) candidates.push_back({beams[b].cum + lp[t], b * v + t});
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<Beam> next;
    for (int rank = 0; rank < 2 * k && static_cast<int>(next.size()) < k; ++rank) {
      const Beam& from = beams[candidates[rank].second / v];
      const int32_t token = candidates[rank].second % v;
      if (token != o.eos_id) {
        next.push_back({from.prefix, candidates[rank].first});
        next.back().prefix.push_back(token);
      } else if (rank < k) {
        add(from.prefix, candidates[rank].first, len);
      }
    }
    if (static_cast<int>(kept.size()) == k && worst >= candidates[0].first / std::pow(len, o.length_penalty))
      break;
    beams = next;
    if (len == max_length) {
      for (const Beam& b : beams) add(b.prefix, b.cum, len + 1);
      break;
    }
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Done& a, const Done& b) { return a.score > b.score; });
  std::vector<Hypothesis> result;
  for (const Done& d : kept) {
    // Scores near -1e9 come from the dummy copies (only when max_length is 1); we start with one row instead.
    if (static_cast<int>(result.size()) < o.n_best && d.score > -1e8) {
      result.emplace_back();
      result.back().tokens = d.tokens;
      result.back().score = static_cast<float>(d.score);
    }
  }
  return result;
}

struct RandomCase {
  std::vector<uint64_t> seeds;
  std::vector<int> max_lengths;
};

RandomCase random_case(int n_sentences, uint64_t salt) {
  RandomCase c;
  for (int s = 0; s < n_sentences; ++s) {
    c.seeds.push_back(mix(salt * 1000 + s));
    c.max_lengths.push_back(1 + static_cast<int>(mix(salt + 77 * s) % 14));
  }
  return c;
}

std::vector<SearchOptions> option_grid(int beam_size, int n_best) {
  std::vector<SearchOptions> grid;
  for (float lp : {0.0f, 0.6f, 1.0f, 1.5f}) {
    for (bool renormalize : {false, true}) {
      for (const auto& banned : std::vector<Prefix>{{}, {kPad}, {kPad, 3}}) {
        SearchOptions o = make_options(beam_size, n_best, lp);
        o.renormalize = renormalize;
        o.banned = banned;
        grid.push_back(o);
      }
    }
  }
  return grid;
}

}  // namespace

TEST_CASE("beam search agrees with a plain Hugging Face style reference", "[search]") {
  for (int beam_size : {2, 3}) {
    for (const SearchOptions& o : option_grid(beam_size, beam_size)) {
      if (kRandomVocab - static_cast<int>(o.banned.size()) < 2 * beam_size) continue;
      const RandomCase c = random_case(12, beam_size * 100 + o.banned.size());
      CheckedDecoder decoder(kRandomVocab, random_model(c.seeds), beam_size);
      auto results = core::search(decoder, c.max_lengths, o);
      REQUIRE(results.size() == c.seeds.size());
      for (size_t s = 0; s < c.seeds.size(); ++s) {
        INFO("beam " << beam_size << " lp " << o.length_penalty << " renormalize " << o.renormalize
                     << " banned " << o.banned.size() << " sentence " << s);
        auto expected = reference_beam_search(random_model(c.seeds), s, c.max_lengths[s], o);
        REQUIRE(results[s].size() == expected.size());
        for (size_t i = 0; i < expected.size(); ++i)
          check_hypothesis(results[s][i], expected[i].tokens, expected[i].score);
      }
    }
  }
}

TEST_CASE("beam 1 equals greedy, tokens and scores", "[search]") {
  int compared = 0;
  for (const SearchOptions& o : option_grid(1, 1)) {
    const RandomCase c = random_case(30, 7 + compared);
    CheckedDecoder greedy_decoder(kRandomVocab, random_model(c.seeds), 1);
    CheckedDecoder beam_decoder(kRandomVocab, random_model(c.seeds), 1);
    auto greedy = core::search(greedy_decoder, c.max_lengths, o);
    auto beam = core::search_detail::beam_search(beam_decoder, c.max_lengths, o);
    REQUIRE(greedy.size() == beam.size());
    for (size_t s = 0; s < greedy.size(); ++s) {
      REQUIRE(greedy[s].size() == 1);
      REQUIRE(beam[s].size() == 1);
      CHECK(greedy[s][0].tokens == beam[s][0].tokens);
      CHECK(greedy[s][0].score == beam[s][0].score);  // exactly: same float sums, same normalisation
      ++compared;
    }
    CHECK(greedy_decoder.steps_of_sentence == beam_decoder.steps_of_sentence);
  }
  CHECK(compared == 24 * 30);
}

TEST_CASE("a sentence decodes the same alone and inside a batch", "[search]") {
  const RandomCase c = random_case(9, 4242);
  for (int beam_size : {1, 3}) {
    SearchOptions o = make_options(beam_size, beam_size, 1.0f);
    o.banned = {kPad};
    CheckedDecoder batch_decoder(kRandomVocab, random_model(c.seeds), beam_size);
    auto batch = core::search(batch_decoder, c.max_lengths, o);
    for (size_t s = 0; s < c.seeds.size(); ++s) {
      CheckedDecoder alone_decoder(kRandomVocab, random_model({c.seeds[s]}), beam_size);
      auto alone = core::search(alone_decoder, {c.max_lengths[s]}, o);
      REQUIRE(alone[0].size() == batch[s].size());
      for (size_t i = 0; i < alone[0].size(); ++i) {
        CHECK(alone[0][i].tokens == batch[s][i].tokens);
        CHECK(alone[0][i].score == batch[s][i].score);
      }
      CHECK(alone_decoder.steps_of_sentence[0] == batch_decoder.steps_of_sentence[s]);
    }
  }
}

TEST_CASE("finished sentences leave the batch, banned ids never appear", "[search]") {
  const RandomCase c = random_case(20, 99);
  for (int beam_size : {1, 2, 4}) {
    SearchOptions o = make_options(beam_size, beam_size, 1.0f);
    o.banned = {kPad, 2};
    CheckedDecoder decoder(kRandomVocab, random_model(c.seeds), beam_size);
    auto results = core::search(decoder, c.max_lengths, o);
    int greedy_rows = 0;
    for (size_t s = 0; s < results.size(); ++s) {
      REQUIRE(!results[s].empty());
      CHECK(decoder.steps_of_sentence[s] <= c.max_lengths[s]);
      for (const Hypothesis& h : results[s]) {
        CHECK(static_cast<int>(h.tokens.size()) < c.max_lengths[s]);
        for (int32_t t : h.tokens) CHECK((t != kPad && t != 2 && t != kEos));
      }
      for (size_t i = 1; i < results[s].size(); ++i) CHECK(results[s][i - 1].score >= results[s][i].score);
      greedy_rows += static_cast<int>(results[s][0].tokens.size()) + 1;
    }
    // Greedy steps each sentence once per generated token, EOS included, and never after it.
    if (beam_size == 1) CHECK(decoder.rows_stepped == greedy_rows);
  }
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
