// Up-front bounds on the memory one batch can take, so a run is sized to --max-memory before it starts
// instead of failing (or swapping) half-way through a file.
#pragma once

#include <cstdint>

#include "models/model_config.h"

namespace pipeline {

// The shape of the largest batch a run can form.
struct BatchShape {
  int sentences = 1;      // sources in the batch
  int beam = 1;           // rows per sentence
  int source_tokens = 1;  // ids per source, EOS included (sentences are cut at max_sentence_tokens)
  int output_tokens = 1;  // positions decoded per row (the max-length limits)
};

// Worst-case bytes one batch of `shape` allocates: the encoder's activations, the decoder's
// self-attention caches (every row, every position), cross-attention keys and values, scratch and the
// search's logits. Pages are touched lazily, so a real batch usually takes less.
uint64_t batch_memory_bytes(const models::ModelConfig& config, const BatchShape& shape);

// The most sentences per batch, at most `shape.sentences`, for which `parallel` batches in flight fit in
// `budget_bytes`; 0 when not even one sentence fits.
int sentences_within(const models::ModelConfig& config, const BatchShape& shape, int parallel,
                     uint64_t budget_bytes);

}  // namespace pipeline
