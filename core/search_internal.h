// Helpers shared by greedy and beam search: private to core/search*.cc and tests/unit/test_search.cc.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/loop_guard.h"
#include "core/search.h"
#include "core/thread_team.h"

namespace core {
namespace search_detail {

// The log-probabilities the search ranks, for one row of logits: log_softmax, banned ids -> -inf,
// optional renormalisation, forced EOS on the last step. The search never writes them out: prepare()
// fixes up the raw row and returns `shift`, and log-probability(i) = log_prob(row[i], shift).
// The search reads a row of logits in blocks of this many tokens.
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
constexpr int kScanBlock = 64;
inline int scan_blocks(int vocab_size) { return (vocab_size + kScanBlock - 1) / kScanBlock; }

// The running state of one row's log_softmax shift, max + log(sum(exp(x - max))): add_to_shift takes the
// row's logits in order, in pieces that start at multiples of kScanBlock (the last may be short), writing
// each block's max to block_maxes[piece's blocks]; shift() then equals one pass over the whole row, bit for
// bit, however the row was cut.
struct ShiftSum {
  double lane_sum[kScanBlock] = {};
  float max = kMinusInf;
  double shift() const;
};
void add_to_shift(ShiftSum& sum, const float* x, int n, float* block_maxes);

class LogProbs {
 public:
  LogProbs(int vocab_size, const SearchOptions& options);  // options must be valid (see search.cc)
  // `force_eos`: this step is the sentence's last, so EOS gets 0 and every other id -inf.
  // `forced` >= 0: a prefix token; it keeps its log-probability (even when banned), every other id -inf.
  // Also writes an upper bound of each kScanBlock-block of the row to block_maxes[scan_blocks(vocab)],
  // for select_top.
  double prepare(float* row, bool force_eos, float* block_maxes, int32_t forced = -1) const;
  // The whole row in place (for tests and callers that want the values).
  void apply(float* row, bool force_eos) const;

 private:
  int vocab_size_;
  int32_t eos_id_;
  bool renormalize_;
  std::vector<int32_t> banned_;  // validated, sorted, unique
};

// The logits of the decoder's rows [first_row, first_row + n_rows) of step `position` into `logits`
// [n_rows, vocab], each row prepared (shifts[r], block_maxes[r * scan_blocks]) with its sentence's last-step
// and prefix rules; rows split over the batch's threads (one pass over each row of logits: the bulk of the
// search's work). Row first_row + r belongs to sentence row_sentence[first_row + r]. An active `guard`
// (its histories filled for the group's rows) guards each row first, except on a forced prefix token or
// the forced last EOS.
void fetch_group(DecoderStep& decoder, const LogProbs& log_probs, const SearchOptions& options,
                 const std::vector<int>& max_lengths, const std::vector<int>& row_sentence, int first_row,
                 int n_rows, int position, float* logits, double* shifts, float* block_maxes,
                 LoopGuard& guard);

// Rows per thread below which the output layer runs in two passes: the scan gives each thread its own
// rows and streams all the weights once per thread, which pays only when a thread has rows enough to
// reuse them; with fewer (one sentence's beams, a small greedy batch) the two-pass products split the
// columns over the threads and read the weights once in all.
constexpr int kScanRowsPerThread = 8;

// Whether greedy and beam search run the output layer in one pass (core/output_scan.h): the decoder offers
// its columns, no loop guard needs a row's whole logits before the log_softmax, and the batch's largest
// step (`max_rows`: every sentence's beams) has kScanRowsPerThread rows per thread of the current team.
// Both ways select the same candidates, bit for bit.
inline bool scans_output(const DecoderStep& decoder, const SearchOptions& options, int max_rows) {
  return decoder.offers_logit_columns() && !LoopGuard::active(options) &&
         max_rows >= kScanRowsPerThread * team_size();
}

// The longest history a row can have: the largest max_length less its EOS.
inline int max_history(const std::vector<int>& max_lengths) {
  int longest = 1;
  for (int length : max_lengths) longest = std::max(longest, length);
  return longest - 1;
}

inline float log_prob(float logit, double shift) { return static_cast<float>(logit - shift); }

// One expansion of a sentence's beams: `index` = beam * vocab_size + token, beams local to the sentence.
struct Candidate {
  float cum_logprob;
  int index;
};

// Rank order: higher score first, ties broken by lower flattened index (a stable top-k).
bool ranks_before(const Candidate& a, const Candidate& b);

// Fills `top` with the best `k` of cum_logprobs[beam] + log_prob(logits[beam][token], shifts[beam]), best
// first (k = 1 is greedy's argmax). A bounded heap whose front is the worst kept candidate; `top` must have
// capacity k. Candidates come in increasing index order, so once the heap is full one that merely ties the
// worst ranks after it: a block of tokens whose bound (block_maxes[beam][block], from prepare()) cannot
// beat the worst kept is skipped unread. Exact: cum_logprob + log_prob(x, shift) never decreases as x grows.
void select_top(const float* logits, const float* block_maxes, const double* shifts,
                const float* cum_logprobs, int n_beams, int vocab_size, int k, std::vector<Candidate>& top);

// Finished score as Hugging Face computes it (Python floats, i.e. double); `length` counts EOS.
inline double normalized_score(float cum_logprob, int length, float length_penalty) {
  return static_cast<double>(cum_logprob) / std::pow(static_cast<double>(length), double{length_penalty});
}

// The prefix token sentence `s` must generate as its `index`-th token (0-based), or -1 when free.
inline int32_t forced_token(const SearchOptions& options, int s, int index) {
  if (options.prefixes.empty()) return -1;
  const std::vector<int32_t>& prefix = options.prefixes[s];
  return index < static_cast<int>(prefix.size()) ? prefix[index] : -1;
}

// All four expect validated arguments and at least one sentence.
std::vector<std::vector<Hypothesis>> greedy_search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                                   const SearchOptions& options);
std::vector<std::vector<Hypothesis>> beam_search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                                 const SearchOptions& options);
std::vector<std::vector<Hypothesis>> constrained_search(DecoderStep& decoder,
                                                        const std::vector<int>& max_lengths,
                                                        const SearchOptions& options);
std::vector<std::vector<Hypothesis>> sampling_search(DecoderStep& decoder,
                                                     const std::vector<int>& max_lengths,
                                                     const SearchOptions& options);

// Token history as a shared tree, for the beam searches: each running beam points at its last token's node.
struct TraceNode {
  int parent;  // -1: the token follows the start token
  int32_t token;
  float log_prob;  // the token's
};

// A hypothesis that emitted EOS, as the beam searches keep it until the end.
struct Finished {
  int last_node;  // last generated token before EOS, -1 for the empty output
  double score;
  float raw_score;      // sum of log-probabilities, EOS's included
  float eos_log_prob;   // EOS's
  bool length_limit;    // EOS came at the sentence's max_length
  bool missed = false;  // constrained search: a constraint is not met
};

// The finished hypothesis's tokens and their log-probabilities, EOS's last.
inline Hypothesis trace(const std::vector<TraceNode>& nodes, const Finished& f) {
  Hypothesis h;
  for (int node = f.last_node; node >= 0; node = nodes[node].parent) {
    h.tokens.push_back(nodes[node].token);
    h.token_scores.push_back(nodes[node].log_prob);
  }
  std::reverse(h.tokens.begin(), h.tokens.end());
  std::reverse(h.token_scores.begin(), h.token_scores.end());
  h.token_scores.push_back(f.eos_log_prob);
  h.score = static_cast<float>(f.score);
  h.raw_score = f.raw_score;
  h.length_limit = f.length_limit;
  h.constraints_missed = f.missed;
  return h;
}

}  // namespace search_detail
}  // namespace core
