// Attention weights recorded while decoding, for alignments and pictures. A DecoderState made with an
// AttentionRequest records each step's weights per cache entry (one per hypothesis prefix and position),
// so beams that share a prefix share its weights and a beam's weights follow it when beams are reordered.
// Without a request nothing is recorded and the decoder step does no extra work.
#pragma once

#include <cstdint>
#include <vector>

#include "core/buffer_pool.h"
#include "models/attention_cache.h"
#include "models/model_config.h"

namespace models {

// Which attention to record.
struct AttentionRequest {
  bool cross = false;    // decoder to encoder
  bool decoder = false;  // decoder self-attention
  bool encoder = false;  // encoder self-attention
  int layer = -1;        // one layer (0-based), or -1 for every layer
  bool wants(int l) const { return layer < 0 || layer == l; }
};

// One translated sentence's attention. Every matrix is [head][query][key] row-major and each row sums to
// 1; layers not recorded are empty, and `decoder` has no layers when self-attention was not asked for (or
// the decoder has none: SSRU).
struct AttentionMatrices {
  int n_heads = 0;
  int source_len = 0;  // source tokens, EOS included
  int target_len = 0;  // decoder steps: one per generated token, plus the step that chose EOS
  std::vector<std::vector<float>> cross;  // [layer] -> [heads, target_len, source_len]
  std::vector<std::vector<float>>
      decoder;  // [layer] -> [heads, target_len, target_len], 0 above the diagonal
  std::vector<std::vector<float>> encoder;  // [layer] -> [heads, source_len, source_len]
};

// weights[h * stride + j] = softmax_j(q_h . k_j,h / sqrt(head_dim)) for the `len` key rows of k (stride d;
// row j is row entries[j] when entries is given). Recomputed from the same queries and keys as the decoder's
// attention kernel, so the kernel itself stays free of recording.
void attention_weights(const float* q, const float* k, const int32_t* entries, int len, int d, int n_heads,
                       size_t stride, float* weights);
// The same for rows `first` + (entries[j] or j) of a decoder cache of any type (models/attention_cache.h).
void attention_weights(const float* q, const CacheRows& k, size_t first, const int32_t* entries, int len,
                       int d, int n_heads, size_t stride, float* weights);

// Per-entry storage of the decoder's attention and the tree of entries (each entry's parent and input
// token), from which a finished hypothesis's weights are read back by its tokens.
class AttentionCapture {
 public:
  // max_rows x max_steps: the cache entries the decoder can hand out (never reused while recording).
  AttentionCapture(const AttentionRequest& request, const ModelConfig& config, int max_rows, int max_steps,
                   int longest_source);

  bool records_cross(int layer) const { return request_.cross && request_.wants(layer); }
  bool records_self(int layer) const { return request_.decoder && request_.wants(layer); }
  // [heads, longest_source] and [heads, max_steps] floats for one entry's weights.
  float* cross_slot(int layer, int32_t entry) {
    return cross_[layer].data() + static_cast<size_t>(entry) * n_heads_ * longest_source_;
  }
  float* self_slot(int layer, int32_t entry) {
    return self_[layer].data() + static_cast<size_t>(entry) * n_heads_ * max_steps_;
  }
  size_t cross_stride() const { return longest_source_; }
  size_t self_stride() const { return max_steps_; }

  // Entry `entry` was fed `token` in a row of `sentence`, continuing entry `parent` (-1 at position 0).
  void record_entry(int32_t entry, int32_t parent, int32_t token, int sentence);
  void reset();  // a new search

  // The weights of the hypothesis `tokens` (EOS excluded) of `sentence`, whose source has `source_len`
  // tokens: one row per step that fed the start token and then each token; the row after the last token
  // is there when the search ran that step (it chose EOS).
  AttentionMatrices extract(int sentence, const std::vector<int32_t>& tokens, int source_len) const;

 private:
  AttentionRequest request_;
  int n_layers_, n_heads_, max_steps_, longest_source_;
  std::vector<core::PooledBuffer> cross_, self_;  // [layer] -> [entries, heads, stride]; empty if not wanted
  // The tree of entries as linked lists: [entry] -> input token, first child, next sibling (-1: none);
  // [sentence] -> first entry at position 0.
  std::vector<int32_t> token_, first_child_, next_sibling_, first_root_;
};

}  // namespace models
