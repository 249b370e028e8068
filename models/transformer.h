// The Transformer encoder-decoder: an immutable loaded model. Per-request state lives in
// EncodedBatch (encoder output) and DecoderState (caches), so one model serves many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/checkpoint.h"
#include "models/transformer_weights.h"

namespace models {

// Encoder output for a batch, packed without padding: sentence i owns rows [offsets[i], offsets[i] +
// lengths[i]).
struct EncodedBatch {
  std::vector<float> memory;  // [total_rows, d_model]
  std::vector<int> offsets;
  std::vector<int> lengths;
  // When asked for: [sentence][layer] -> self-attention weights [heads, lengths[i], lengths[i]].
  std::vector<std::vector<std::vector<float>>> attention;
};

class Transformer {
 public:
  explicit Transformer(const std::string& model_dir);
  explicit Transformer(std::unique_ptr<Checkpoint> checkpoint);  // an opened (verified) checkpoint

  const ModelDescription& description() const { return checkpoint_->description(); }
  const ModelConfig& config() const { return checkpoint_->description().config; }
  const TransformerWeights& weights() const { return weights_; }
  const Checkpoint& checkpoint() const { return *checkpoint_; }
  float embedding_scale() const;

  // sources[i]: token ids incl. EOS, 1..max_positions long, each id < src_vocab_size (checked).
  // record_attention: also fill EncodedBatch::attention.
  EncodedBatch encode(const std::vector<std::vector<int32_t>>& sources, bool record_attention = false) const;

 private:
  std::unique_ptr<Checkpoint> checkpoint_;
  TransformerWeights weights_;
};

}  // namespace models
