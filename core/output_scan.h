// The output layer in one pass: greedy and beam search take a step's logits from the decoder a column block
// at a time for all rows (DecoderStep::logit_columns), and each row keeps its log_softmax shift's running
// state and its best candidates, so the output weights stream once per step and no rows x vocab buffer
// exists. Exact: the shift is the two-pass one bit for bit (ShiftSum), and a selection is select_top's
// whenever the kept candidates prove it (select says when they cannot; the search then takes those rows'
// logits the two-pass way). Private to core/search*.cc and its tests.
#pragma once

#include <cstdint>
#include <vector>

#include "core/search.h"
#include "core/search_internal.h"

namespace core {
namespace search_detail {

class OutputScan {
 public:
  // What a row needs this step: rule(r) is a forced prefix token (>= 0: its logit is kept), or one of these.
  static constexpr int32_t kFree = -1;      // its best candidates
  static constexpr int32_t kForceEos = -2;  // nothing read: its sentence's last step, only EOS may follow

  // max_rows: the most rows a step has; keep: candidates kept per row, at least one more than the most a
  // selection asks of a row (the extra one proves the others exact). Everything the scan touches is sized
  // here.
  OutputScan(const SearchOptions& options, int vocab_size, int max_rows, int keep);

  int32_t& rule(int r) { return rules_[r]; }
  // The rule of a row of sentence `sentence` at step `position` (max_length: the sentence's).
  static int32_t rule_at(const SearchOptions& options, int sentence, int position, int max_length) {
    if (position + 1 >= max_length) return kForceEos;
    const int32_t forced = forced_token(options, sentence, position);
    return forced >= 0 ? forced : kFree;
  }
  // Rows [0, n_rows) of the decoder's last step, each by its rule: the whole output layer once.
  void scan(DecoderStep& decoder, int n_rows);

  // select_top over rows [first_row, first_row + n_rows) as LogProbs::prepare would leave them (banned ids,
  // the forced prefix token, the forced EOS), cum_logprobs one per row: the best k into `top`, best first.
  // False when the kept candidates cannot prove the result (ties at the cut, non-finite values): then
  // `top` is unspecified and the caller computes those rows' logits. `top` needs capacity n_rows * k.
  bool select(int first_row, int n_rows, const float* cum_logprobs, int k, std::vector<Candidate>& top);

  // Row r's shift (its log_softmax's max + log(sum(exp))), valid after scan() for a row not kForceEos.
  double shift(int r) const { return shifts_[r]; }

 private:
  void scan_row(int r, float* x, int first, int n);
  void keep_candidates(int r, const float* x, int first, int n, const float* block_maxes);

  int vocab_size_;
  int keep_;
  bool renormalize_;
  int32_t eos_id_;
  std::vector<int32_t> banned_;  // sorted, unique
  std::vector<int32_t> rules_;
  std::vector<ShiftSum> sums_;
  std::vector<double> shifts_;
  std::vector<uint8_t> non_finite_;  // a row saw a NaN or infinite logit: its selection is left to the caller
  std::vector<float> forced_logits_;
  std::vector<int> counts_;
  std::vector<float> kept_logits_;  // [max_rows, keep]: best first (higher logit, then lower id)
  std::vector<int32_t> kept_ids_;
  std::vector<float> columns_;  // [max_rows, DecoderStep::kLogitColumns]: one column block's logits
};

}  // namespace search_detail
}  // namespace core
