// How length-sorted sentences are cut into batches: by sentence count (--batch-size) or by source tokens
// (--max-batch-tokens, CTranslate2's batch_type "tokens"). A sentence's translation never depends on its
// batch, so the cut only moves speed and memory.
#pragma once

#include <cstddef>
#include <vector>

namespace pipeline {

// Batches of `batch_size` sentences, the last one partial, or, when that would leave one of `threads`
// without a batch, one batch per thread (up to n), so a short input keeps every core busy. Returns each
// batch's first index and, last, n.
std::vector<size_t> sentence_batch_bounds(size_t n_sentences, int batch_size, int threads);

// Runs of consecutive sentences (given by their lengths, in batch order) whose lengths sum to at most
// max_tokens (> 0); a longer sentence is a batch alone. Returns each batch's first index and, last, the
// number of sentences.
std::vector<size_t> token_batch_bounds(const std::vector<size_t>& lengths, size_t max_tokens);

}  // namespace pipeline
