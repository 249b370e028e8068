// CTranslate2's loop guards (repetition penalty, no-repeat n-grams) on rows of logits, before log_softmax.
// Private to core/search*.cc and its tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/search.h"

namespace core {
namespace search_detail {

// One group of rows' token histories and the scratch to guard them, sized once per batch: the step loop
// only writes into them. Rows of a group may be guarded on different threads.
class LoopGuard {
 public:
  // group_rows: rows held at once; max_history: the longest history a row can have (max_length - 1).
  LoopGuard(const SearchOptions& options, int group_rows, int max_history);

  // Off (penalty 1, no n-gram size): the search skips the guard and its outputs are unchanged.
  bool active() const { return active_; }
  static bool active(const SearchOptions& options) {
    return options.repetition_penalty != 1.0f || options.no_repeat_ngram_size > 0;
  }

  // Group row r's history, the tokens its hypothesis generated so far: the caller writes
  // history_length(r) <= max_history tokens at history(r).
  int32_t* history(int r) { return history_.data() + static_cast<size_t>(r) * stride_; }
  int& history_length(int r) { return lengths_[r]; }

  // Guards group row r's logits (vocab ids) in place: every distinct token of the history gets its logit
  // divided by the penalty when positive, multiplied when negative; every token that would complete an
  // n-gram already in the history gets -inf.
  void apply(int r, float* logits);

 private:
  float penalty_;
  int ngram_size_;
  bool active_;
  size_t stride_;
  std::vector<int32_t> history_;  // [group_rows, stride_]
  std::vector<int> lengths_;      // [group_rows]
  std::vector<float> old_;        // [group_rows, stride_]: logits before the penalty
};

}  // namespace search_detail
}  // namespace core
