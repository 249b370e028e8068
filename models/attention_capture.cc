#include "models/attention_capture.h"

#include <algorithm>
#include <cmath>

#include "core/half.h"

namespace models {

namespace {

// weights[h * stride + j] = softmax_j(dot(h, j) * scale); dot(h, j) = q_h . k_j,h.
template <class Dot>
void softmax_of_dots(Dot dot, int len, int dh, int n_heads, size_t stride, float* weights) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  for (int h = 0; h < n_heads; ++h) {
    float* w = weights + h * stride;
    float max = -INFINITY;
    for (int j = 0; j < len; ++j) {
      w[j] = dot(h, j) * scale;
      max = std::max(max, w[j]);
    }
    double sum = 0.0;
    for (int j = 0; j < len; ++j) {
      w[j] = std::exp(w[j] - max);
      sum += w[j];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int j = 0; j < len; ++j) w[j] *= inv;
  }
}

}  // namespace

void attention_weights(const float* q, const float* k, const int32_t* entries, int len, int d, int n_heads,
                       size_t stride, float* weights) {
  const int dh = d / n_heads;
  auto dot = [&](int h, int j) {
    const float* kj = k + static_cast<size_t>(entries ? entries[j] : j) * d + h * dh;
    float sum = 0.0f;
    for (int i = 0; i < dh; ++i) sum += q[h * dh + i] * kj[i];
    return sum;
  };
  softmax_of_dots(dot, len, dh, n_heads, stride, weights);
}

void attention_weights(const float* q, const CacheRows& k, size_t first, const int32_t* entries, int len,
                       int d, int n_heads, size_t stride, float* weights) {
  const int dh = d / n_heads;
  auto row_of = [&](int j) { return static_cast<size_t>(entries ? entries[j] : j); };
  switch (k.type()) {
    case CacheType::kF32:
      return attention_weights(q, k.floats(first), entries, len, d, n_heads, stride, weights);
    case CacheType::kF16: {
      const core::HalfRows rows = k.half_rows(first);
      auto dot = [&](int h, int j) {
        const uint16_t* kj = rows.values + row_of(j) * d + h * dh;
        float sum = 0.0f;
        for (int i = 0; i < dh; ++i) sum += q[h * dh + i] * core::half_to_float(kj[i]);
        return sum;
      };
      return softmax_of_dots(dot, len, dh, n_heads, stride, weights);
    }
    case CacheType::kInt8: {
      const core::Int8Rows rows = k.int8_rows(first);
      auto dot = [&](int h, int j) {
        const int8_t* kj = rows.values + row_of(j) * d + h * dh;
        float sum = 0.0f;
        for (int i = 0; i < dh; ++i) sum += q[h * dh + i] * static_cast<float>(kj[i]);
        return sum * rows.scales[row_of(j) * n_heads + h];
      };
      return softmax_of_dots(dot, len, dh, n_heads, stride, weights);
    }
  }
}

AttentionCapture::AttentionCapture(const AttentionRequest& request, const ModelConfig& config, int max_rows,
                                   int max_steps, int longest_source)
    : request_(request),
      n_layers_(config.decoder_layers),
      n_heads_(config.n_heads),
      max_steps_(max_steps),
      longest_source_(longest_source) {
  const size_t n_entries = static_cast<size_t>(max_rows) * max_steps;
  cross_.resize(n_layers_);
  self_.resize(n_layers_);
  // Uninitialised: only the slots of entries handed out are written and read.
  for (int l = 0; l < n_layers_; ++l) {
    if (records_cross(l)) cross_[l] = core::PooledBuffer(n_entries * n_heads_ * longest_source_);
    if (records_self(l)) self_[l] = core::PooledBuffer(n_entries * n_heads_ * max_steps_);
  }
  token_.resize(n_entries);
  first_child_.resize(n_entries);
  next_sibling_.resize(n_entries);
  first_root_.resize(max_rows);
  reset();
}

void AttentionCapture::reset() {
  std::fill(first_child_.begin(), first_child_.end(), -1);
  std::fill(first_root_.begin(), first_root_.end(), -1);
}

void AttentionCapture::record_entry(int32_t entry, int32_t parent, int32_t token, int sentence) {
  token_[entry] = token;
  first_child_[entry] = -1;
  int32_t& first = parent < 0 ? first_root_.at(sentence) : first_child_[parent];
  next_sibling_[entry] = first;
  first = entry;
}

AttentionMatrices AttentionCapture::extract(int sentence, const std::vector<int32_t>& tokens,
                                            int source_len) const {
  // The path of entries: the sentence's start step, then the step fed each token in turn. Rows that
  // reached the same prefix independently (samples of one sentence) computed the same weights, so each
  // level keeps every such entry and the path takes the first.
  std::vector<int32_t> path, level, next;
  for (int32_t e = first_root_.at(sentence); e >= 0; e = next_sibling_[e]) level.push_back(e);
  while (!level.empty()) {
    path.push_back(level.front());
    if (path.size() > tokens.size()) break;
    const int32_t token = tokens[path.size() - 1];
    next.clear();
    for (int32_t parent : level) {
      for (int32_t e = first_child_[parent]; e >= 0; e = next_sibling_[e]) {
        if (token_[e] == token) next.push_back(e);
      }
    }
    level.swap(next);
  }
  AttentionMatrices m;
  m.n_heads = n_heads_;
  m.source_len = source_len;
  m.target_len = static_cast<int>(path.size());
  const size_t t = path.size();
  m.cross.resize(n_layers_);
  // No layers at all when self-attention is not recorded (an SSRU decoder has none): readers see no layer
  // rather than empty ones.
  m.decoder.resize(request_.decoder ? n_layers_ : 0);
  for (int l = 0; l < n_layers_; ++l) {
    if (records_cross(l)) {
      std::vector<float>& out = m.cross[l];
      out.resize(n_heads_ * t * source_len);
      for (int h = 0; h < n_heads_; ++h) {
        for (size_t row = 0; row < t; ++row) {
          const float* in =
              cross_[l].data() + (static_cast<size_t>(path[row]) * n_heads_ + h) * longest_source_;
          std::copy(in, in + source_len, out.begin() + (h * t + row) * source_len);
        }
      }
    }
    if (records_self(l)) {
      std::vector<float>& out = m.decoder[l];
      out.assign(n_heads_ * t * t, 0.0f);
      for (int h = 0; h < n_heads_; ++h) {
        for (size_t row = 0; row < t; ++row) {
          const float* in = self_[l].data() + (static_cast<size_t>(path[row]) * n_heads_ + h) * max_steps_;
          std::copy(in, in + row + 1, out.begin() + (h * t + row) * t);
        }
      }
    }
  }
  return m;
}

}  // namespace models
