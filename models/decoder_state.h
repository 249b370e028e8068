// Incremental decoding for one encoded batch: self-attention key/value caches per row (hypothesis),
// cross-attention keys/values computed once per sentence. All buffers are sized at construction,
// so the decode loop allocates nothing.
#pragma once

#include <memory>
#include <vector>

#include "core/buffer_pool.h"
#include "core/search.h"
#include "models/transformer.h"

namespace models {

class DecoderState : public core::DecoderStep {
 public:
  // max_rows: most rows alive at once (sentences x beam); max_steps: most positions fed per row.
  DecoderState(const Transformer& model, const EncodedBatch& encoded, int max_rows, int max_steps);

  int vocab_size() const override { return model_.config().tgt_vocab_size; }
  void start(int n_sentences) override;
  void select_rows(const std::vector<int>& src_rows) override;
  void step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row, int position,
            float* logits) override;

 private:
  void self_attention(int layer, const float* in, int position, float* result);
  void cross_attention(int layer, const float* in, const std::vector<int>& sentence_of_row, float* result);

  const Transformer& model_;
  const EncodedBatch& encoded_;
  const int d_;
  const int max_rows_;
  const int max_steps_;
  int n_rows_ = 0;
  int filled_ = 0;  // positions stored in the self-attention caches

  // Uninitialised (pages are only touched as positions fill, so RSS follows real lengths) and pooled (the
  // next batch reuses the pages).
  // [layer] -> [max_steps, max_rows, d], step-major: position p of the row in slot s is row p*max_rows + s.
  // A row never moves once written; reordering beams only rewrites which slot each position came from.
  std::vector<core::PooledBuffer> self_k_, self_v_;
  // [max_rows, max_steps]: slots_[r][p] = slot holding position p of row r's history (and its spare).
  std::vector<int32_t> slots_, spare_slots_;
  // [layer] -> [total source rows, d], packed like encoded.memory.
  std::vector<core::PooledBuffer> cross_k_, cross_v_;
  // Scratch [max_rows, d] / [max_rows, ffn] / [max(max_steps, longest source)].
  core::PooledBuffer x_, normed_, q_, ctx_, tmp_, hidden_, scores_;
};

}  // namespace models
