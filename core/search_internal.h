// Helpers shared by greedy and beam search: private to core/search*.cc and tests/unit/test_search.cc.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/search.h"

namespace core {
namespace search_detail {

// The log-probabilities the search ranks, for one row of logits: log_softmax, banned ids -> -inf,
// optional renormalisation, forced EOS on the last step. The search never writes them out: prepare()
// fixes up the raw row and returns `shift`, and log-probability(i) = log_prob(row[i], shift).
class LogProbs {
 public:
  LogProbs(int vocab_size, const SearchOptions& options);  // options must be valid (see search.cc)
  // `force_eos`: this step is the sentence's last, so EOS gets 0 and every other id -inf.
  double prepare(float* row, bool force_eos) const;
  // The whole row in place (for tests and callers that want the values).
  void apply(float* row, bool force_eos) const;

 private:
  int vocab_size_;
  int32_t eos_id_;
  bool renormalize_;
  std::vector<int32_t> banned_;  // validated, sorted, unique
};

inline float log_prob(float logit, double shift) { return static_cast<float>(logit - shift); }

// Tokens are scanned in blocks; a block is skipped when even its largest logit cannot pass the bar.
// Exact, because offset + log_prob(x, shift) never decreases as x grows.
constexpr int kScanBlock = 64;
inline float block_max(const float* x, int n) {
  float m = x[0];
#pragma omp simd reduction(max : m)
  for (int i = 1; i < n; ++i) m = m > x[i] ? m : x[i];
  return m;
}

// Finished score as Hugging Face computes it (Python floats, i.e. double); `length` counts EOS.
inline double normalized_score(float cum_logprob, int length, float length_penalty) {
  return static_cast<double>(cum_logprob) / std::pow(static_cast<double>(length), double{length_penalty});
}

// Both expect validated arguments and at least one sentence.
std::vector<std::vector<Hypothesis>> greedy_search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                                   const SearchOptions& options);
std::vector<std::vector<Hypothesis>> beam_search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                                 const SearchOptions& options);

}  // namespace search_detail
}  // namespace core
