#include "models/layers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/gemm.h"
#include "core/marian_math.h"
#include "core/simd.h"

namespace models {

void project(const Linear& l, const float* x, int rows, float* y) {
  if (l.int8)
    core::int8_linear(x, rows, *l.int8, l.bias, y);
  else if (l.packed)
    core::packed_linear(x, rows, *l.packed, l.bias, y);
  else
    core::linear(x, rows, l.in, l.weight, l.bias, l.out, y);
}

QkvRows project_qkv(const AttentionWeights& a, const float* in, int rows, int d, float* out, size_t block) {
  if (a.qkv.packed || a.qkv.int8) {
    project(a.qkv, in, rows, out);
    return {out, out + d, out + 2 * d, 3 * d};
  }
  project(a.q, in, rows, out);
  project(a.k, in, rows, out + block);
  project(a.v, in, rows, out + 2 * block);
  return {out, out + block, out + 2 * block, d};
}

void attend(const float* q, const float* k, const float* v, int q_len, int k_len, int d, int ld, int n_heads,
            AttentionRounding rounding, float* scores, float* ctx, float* weights) {
  const int dh = d / n_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  void (*const softmax)(float*, int) =
      rounding == AttentionRounding::kMarian ? core::marian_softmax : core::softmax;
  for (int h = 0; h < n_heads; ++h) {
    const int col = h * dh;
    // scores[q_len, k_len] = (Q_h * scale) K_h^T
    core::gemm(false, true, q_len, k_len, dh, scale, q + col, ld, k + col, ld, 0.0f, scores, k_len);
    for (int i = 0; i < q_len; ++i) softmax(scores + static_cast<size_t>(i) * k_len, k_len);
    if (weights) std::copy(scores, scores + static_cast<size_t>(q_len) * k_len, weights + h * q_len * k_len);
    // ctx_h[q_len, dh] = P V_h
    core::gemm(false, false, q_len, dh, k_len, 1.0f, scores, k_len, v + col, ld, 0.0f, ctx + col, d);
  }
}

void embed(const Embedding& table, float scale, const int32_t* ids, int n, int d, const float* positions,
           size_t position_stride, float* out) {
  for (int i = 0; i < n; ++i) {
    const float* p = positions + i * position_stride;
    float* o = out + static_cast<size_t>(i) * d;
    table.copy_row(ids[i], d, o);
    for (int j = 0; j < d; ++j) o[j] = o[j] * scale + p[j];
  }
}

void feed_forward(const Linear& fc1, const Linear& fc2, core::Activation act, const float* x, int rows,
                  float* hidden, float* out) {
  project(fc1, x, rows, hidden);
  core::split_range(rows, kRowsPerPart, [&](int begin, int end, int) {
    core::activate(hidden + static_cast<size_t>(begin) * fc1.out, static_cast<size_t>(end - begin) * fc1.out,
                   act);
  });
  project(fc2, hidden, rows, out);
}

}  // namespace models
