#include "core/loop_guard.h"

#include <algorithm>
#include <limits>

namespace core {
namespace search_detail {

LoopGuard::LoopGuard(const SearchOptions& options, int group_rows, int max_history)
    : penalty_(options.repetition_penalty),
      ngram_size_(options.no_repeat_ngram_size),
      active_(active(options)),
      stride_(active_ ? static_cast<size_t>(std::max(max_history, 1)) : 0),
      history_(static_cast<size_t>(group_rows) * stride_),
      lengths_(active_ ? group_rows : 0),
      old_(penalty_ != 1.0f ? history_.size() : 0) {}

void LoopGuard::apply(int r, float* logits) {
  const int32_t* tokens = history(r);
  const int n = lengths_[r];
  if (penalty_ != 1.0f) {
    // Gather first, then write: a token seen twice is penalised once.
    float* old = old_.data() + static_cast<size_t>(r) * stride_;
    for (int i = 0; i < n; ++i) old[i] = logits[tokens[i]];
    for (int i = 0; i < n; ++i) logits[tokens[i]] = old[i] < 0.0f ? old[i] * penalty_ : old[i] / penalty_;
  }
  if (ngram_size_ > 0 && n >= ngram_size_) {
    // The last ngram_size - 1 tokens, and every earlier place they occur followed by a token: that token
    // would repeat the n-gram.
    const int32_t* tail = tokens + n - (ngram_size_ - 1);
    for (int start = 0; start + ngram_size_ <= n; ++start) {
      if (std::equal(tail, tokens + n, tokens + start))
        logits[tokens[start + ngram_size_ - 1]] = -std::numeric_limits<float>::infinity();
    }
  }
}

}  // namespace search_detail
}  // namespace core
