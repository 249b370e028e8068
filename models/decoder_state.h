// Incremental decoding for one encoded batch: self-attention key/value caches per row (hypothesis), or an
// SSRU decoder's cells, and cross-attention keys/values computed once per sentence. All buffers are sized at
// construction, so the decode loop allocates nothing.
//
// Beams share history: a row's cache is a list of entries, one per position, and rows that descend
// from the same hypothesis point at the same entries for their common prefix. Entries no row points at
// any more are reused, so the cache holds what the live hypotheses need, not a copy per row.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/buffer_pool.h"
#include "core/int8_gemm.h"
#include "core/search.h"
#include "models/attention_cache.h"
#include "models/attention_capture.h"
#include "models/ssru_cells.h"
#include "models/transformer.h"

namespace models {

class DecoderState : public core::DecoderStep {
 public:
  // max_rows: most rows alive at once (sentences x beam); max_steps: most positions fed per row. With a
  // request, every step's attention is recorded (models/attention_capture.h) and cache entries are never
  // reused, so a finished hypothesis's weights stay readable.
  DecoderState(const Transformer& model, const EncodedBatch& encoded, int max_rows, int max_steps,
               const AttentionRequest* capture = nullptr);
  // With caches of the given type instead of the model's own (attention_cache_type): what tests compare.
  DecoderState(const Transformer& model, const EncodedBatch& encoded, int max_rows, int max_steps,
               const AttentionRequest* capture, CacheType caches);

  int vocab_size() const override { return model_.config().tgt_vocab_size; }
  void start(int n_sentences) override;
  void select_rows(const std::vector<int>& src_rows) override;
  void step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
            int position) override;
  void logits(int first_row, int n_rows, float* out) override;
  // The same rows through another output layer of d_model inputs (a shortlist's: models/shortlist_step.h).
  void project_logits(const Linear& output, int first_row, int n_rows, float* out);
  // A quarter of f32's rows for int8 output weights: a pass over them streams a quarter of the bytes.
  int logit_rows() const override;
  // Offered when the output layer is packed or int8, whose kernels give each logit whatever the columns
  // of the call (BLAS may not).
  bool offers_logit_columns() const override { return offers_columns(model_.weights().output); }
  void logit_columns(int first_row, int n_rows, int first, int n, float* out) override;
  // The same through another output layer (a shortlist's).
  static bool offers_columns(const Linear& output) { return output.packed || output.int8; }
  void project_logit_columns(const Linear& output, int first_row, int n_rows, int first, int n, float* out);

  // The cache entry that holds position `position` of row `row`'s history, and the number of entries in
  // use: what the sharing and the reclaiming are seen by (tests).
  int32_t entry(int row, int position) const {
    return entries_[static_cast<size_t>(row) * max_steps_ + position];
  }
  size_t live_entries() const { return used_entries_.size(); }

  // The decoder's recorded attention of hypothesis `tokens` of `sentence` (made with a request).
  AttentionMatrices attention(int sentence, const std::vector<int32_t>& tokens) const;

 private:
  void self_attention(int layer, const float* in, int position, float* result);
  void allocate_entries(int position);  // a fresh entry for each row's new position
  void reclaim_entries();               // entries no row's history points at become free
  // cross_k_ and cross_v_ of every layer from the encoder's output.
  void project_cross(const Transformer& model, const EncodedBatch& encoded, CacheType caches);
  void cross_attention(int layer, const float* in, const std::vector<int>& sentence_of_row, int position,
                       float* result);
  void record_entries(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
                      int position);

  const Transformer& model_;
  const EncodedBatch& encoded_;
  const int d_;
  const int max_rows_;
  const int max_steps_;
  int n_rows_ = 0;
  int filled_ = 0;        // positions stored in the self-attention caches
  int stepped_rows_ = 0;  // rows whose final hidden states x_ holds for logits(); 0 once rows change

  // Uninitialised (free entries are handed out lowest first, so pages are only touched as far as the
  // most entries ever live at once) and pooled (the next batch reuses the pages).
  // [layer] -> [max_rows * max_steps entries, d], f32 or compact (attention_cache_type). An entry never
  // moves once written.
  std::vector<CacheRows> self_k_, self_v_;
  // [max_rows, max_steps]: entries_[r][p] = entry holding position p of row r's history (and its spare).
  std::vector<int32_t> entries_, spare_entries_;
  std::vector<int32_t> free_entries_;  // a stack; its top is the lowest never-used id or a reclaimed one
  std::vector<int32_t> used_entries_;  // handed out and not yet reclaimed
  std::vector<uint8_t> referenced_;    // [entries]: mark bits of reclaim_entries, all 0 between calls
  // [layer] -> [total source rows, d], packed like encoded.memory; of self_k_'s type.
  std::vector<CacheRows> cross_k_, cross_v_;
  // Scratch [max_rows, d] / [max_rows, ffn] / [max(max_steps, longest source)].
  core::PooledBuffer x_, normed_, q_, ctx_, tmp_, hidden_;
  core::PooledBuffer qkv_;  // [max_rows, 3d]: self-attention's queries and new keys and values
  // x_ quantized once per step for int8 output layers, which read it once per column block.
  core::QuantizedRows output_rows_;
  // Attention scores, one scratch of scores_stride_ floats per thread of the team the state was made in.
  float* scores(int part) { return scores_.data() + scores_stride_ * part; }
  core::PooledBuffer scores_;
  size_t scores_stride_ = 0;
  int team_size_ = 1;
  std::unique_ptr<AttentionCapture> capture_;  // null unless attention is recorded
  std::unique_ptr<SsruCells> ssru_;            // an SSRU decoder's state (self_k_ and self_v_ then empty)
};

}  // namespace models
