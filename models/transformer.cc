#include "models/transformer.h"

#include <algorithm>
#include <cmath>

#include "core/buffer_pool.h"
#include "core/error.h"
#include "core/gemm.h"
#include "models/layers.h"

namespace models {

Transformer::Transformer(const std::string& model_dir)
    : Transformer(std::make_unique<Checkpoint>(model_dir)) {}

Transformer::Transformer(std::unique_ptr<Checkpoint> checkpoint)
    : checkpoint_(std::move(checkpoint)), weights_(load_weights(*checkpoint_)) {}

float Transformer::embedding_scale() const {
  return config().scale_embedding ? std::sqrt(static_cast<float>(config().d_model)) : 1.0f;
}

EncodedBatch Transformer::encode(const std::vector<std::vector<int32_t>>& sources,
                                 bool record_attention) const {
  const ModelConfig& c = config();
  const int d = c.d_model;
  EncodedBatch out;
  int rows = 0, longest = 0;
  for (const auto& s : sources) {
    const int len = static_cast<int>(s.size());
    if (len < 1 || len > c.max_positions) {
      throw core::Error("source of " + std::to_string(len) + " tokens: must be 1.." +
                        std::to_string(c.max_positions));
    }
    for (int32_t id : s) {
      if (id < 0 || id >= c.src_vocab_size)
        throw core::Error("source token id " + std::to_string(id) + " out of range");
    }
    out.offsets.push_back(rows);
    out.lengths.push_back(len);
    rows += len;
    longest = std::max(longest, len);
  }
  const size_t n = static_cast<size_t>(rows) * d;
  out.memory.resize(n);
  core::PooledBuffer normed(n), qkv(3 * n), ctx(n), tmp(n);
  core::PooledBuffer hidden(static_cast<size_t>(rows) * c.ffn_dim);
  const size_t scores_stride = static_cast<size_t>(longest) * longest;  // one scratch per thread
  core::PooledBuffer scores(scores_stride * core::team_size());
  float* x = out.memory.data();
  if (record_attention) {
    out.attention.resize(sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      const size_t len = out.lengths[i];
      out.attention[i].assign(c.encoder_layers, std::vector<float>(c.n_heads * len * len));
    }
  }
  int layer_index = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    embed(weights_.src_embed, embedding_scale(), sources[i].data(), out.lengths[i], d, weights_.src_positions,
          d, x + static_cast<size_t>(out.offsets[i]) * d);
  }
  for (const EncoderLayerWeights& layer : weights_.encoder) {
    const int l = layer_index++;
    residual(x, rows, d, layer.self_attn_norm, c.pre_norm, c.layer_norm_eps, normed.data(), tmp.data(),
             [&](const float* in, float* result) {
               const AttentionWeights& a = layer.self_attn;
               const QkvRows p = project_qkv(a, in, rows, d, qkv.data(), n);
               core::split_range(static_cast<int>(sources.size()), 1, [&](int begin, int end, int part) {
                 for (int i = begin; i < end; ++i) {
                   const size_t off = static_cast<size_t>(out.offsets[i]) * p.stride;
                   attend(p.q + off, p.k + off, p.v + off, out.lengths[i], out.lengths[i], d, p.stride,
                          c.n_heads, c.attention_rounding, scores.data() + scores_stride * part,
                          ctx.data() + static_cast<size_t>(out.offsets[i]) * d,
                          record_attention ? out.attention[i][l].data() : nullptr);
                 }
               });
               project(a.o, ctx.data(), rows, result);
             });
    residual(x, rows, d, layer.ffn_norm, c.pre_norm, c.layer_norm_eps, normed.data(), tmp.data(),
             [&](const float* in, float* result) {
               feed_forward(layer.fc1, layer.fc2, c.activation, in, rows, hidden.data(), result);
             });
  }
  if (c.final_norm) {
    core::split_range(rows, kRowsPerPart, [&](int begin, int end, int) {
      float* xb = x + static_cast<size_t>(begin) * d;
      core::layer_norm(xb, end - begin, d, weights_.encoder_final.gamma, weights_.encoder_final.beta,
                       c.layer_norm_eps, xb);
    });
  }
  return out;
}

}  // namespace models
