#include "pipeline/batch_plan.h"

#include <algorithm>

namespace pipeline {

// Larger inputs keep full batches: cutting them into equal batches, as many as a multiple of the threads,
// gains nothing measurable.
std::vector<size_t> sentence_batch_bounds(size_t n, int batch_size, int threads) {
  const size_t size = static_cast<size_t>(batch_size);
  const size_t full = (n + size - 1) / size;
  const bool one_per_thread = full < static_cast<size_t>(threads);
  const size_t count = one_per_thread ? std::min(n, static_cast<size_t>(threads)) : full;
  std::vector<size_t> bounds{0};
  for (size_t b = 1; b <= count; ++b)
    bounds.push_back(one_per_thread ? n * b / count : std::min(n, b * size));
  return bounds;
}

std::vector<size_t> token_batch_bounds(const std::vector<size_t>& lengths, size_t max_tokens) {
  std::vector<size_t> bounds;
  size_t tokens = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (bounds.empty() || tokens + lengths[i] > max_tokens) {
      bounds.push_back(i);
      tokens = 0;
    }
    tokens += lengths[i];
  }
  bounds.push_back(lengths.size());
  return bounds;
}

}  // namespace pipeline
