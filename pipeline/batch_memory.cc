#include "pipeline/batch_memory.h"

#include <algorithm>

#include "core/search.h"

namespace pipeline {

uint64_t batch_memory_bytes(const models::ModelConfig& c, const BatchShape& s) {
  const uint64_t d = static_cast<uint64_t>(c.d_model), ffn = static_cast<uint64_t>(c.ffn_dim);
  const uint64_t heads = static_cast<uint64_t>(std::max(c.n_heads, 1));
  const uint64_t src_rows = static_cast<uint64_t>(s.sentences) * s.source_tokens;
  const uint64_t rows = static_cast<uint64_t>(s.sentences) * s.beam;
  const uint64_t steps = static_cast<uint64_t>(s.output_tokens);
  const uint64_t longest = std::max<uint64_t>(steps, s.source_tokens);
  // Encoder (models/transformer.cc): x, normed, ctx, tmp, 3 for qkv and the kept memory per row; ffn
  // hidden; per-thread attention scores (counted for one thread per head, a generous bound).
  const uint64_t encoder_floats = src_rows * (8 * d + ffn) + heads * longest * s.source_tokens;
  // Decoder (models/decoder_state.cc): self-attention K and V per layer for every row and position,
  // cross-attention K and V per layer for every source row, scratch rows and attention scores.
  const uint64_t layers = static_cast<uint64_t>(c.decoder_layers);
  const uint64_t decoder_floats =
      2 * layers * rows * steps * d + 2 * layers * src_rows * d + rows * (8 * d + ffn) + heads * longest;
  // Entry bookkeeping: four int32 tables and a byte per row and position.
  const uint64_t entry_bytes = rows * steps * (4 * 4 + 1);
  // Search (core/beam_search.cc): logits and the log-probabilities' block maxima for one group of rows
  // (at most DecoderStep::kLogitRows, or one sentence's beams), and each row's history.
  const uint64_t group_rows = std::min<uint64_t>(rows, std::max(core::DecoderStep::kLogitRows, s.beam));
  const uint64_t search_floats = 2 * group_rows * static_cast<uint64_t>(c.tgt_vocab_size) + 4 * rows * steps;
  return 4 * (encoder_floats + decoder_floats + search_floats) + entry_bytes;
}

int sentences_within(const models::ModelConfig& c, const BatchShape& shape, int parallel,
                     uint64_t budget_bytes) {
  const uint64_t per_batch = budget_bytes / static_cast<uint64_t>(std::max(parallel, 1));
  // Bytes grow with the sentence count: bisect for the largest count that fits.
  int lo = 0, hi = std::max(shape.sentences, 0);
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    BatchShape s = shape;
    s.sentences = mid;
    if (batch_memory_bytes(c, s) <= per_batch) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace pipeline
