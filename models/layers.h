// Building blocks shared by the encoder and the incremental decoder.
#pragma once

#include <cstddef>

#include "core/kernels.h"
#include "core/thread_team.h"
#include "models/transformer_weights.h"

namespace models {

// y[rows, l.out] = x[rows, l.in] W^T + b: the packed kernel when the weights were packed at load, else BLAS.
void project(const Linear& l, const float* x, int rows, float* y);

// Self-attention's queries, keys and values for `rows` rows: row r's start at q, k and v + r * stride.
struct QkvRows {
  const float *q, *k, *v;
  int stride;
};
// One stacked product when the weights have one (each row's q, k and v side by side: stride 3d), else
// three products into out, out + block and out + 2 * block (stride d). out: 3 * block floats, block >=
// rows * d.
QkvRows project_qkv(const AttentionWeights& a, const float* in, int rows, int d, float* out, size_t block);

// Scaled dot-product attention of one sentence, all heads, each head's two products by core::gemm and its
// softmax as `rounding` says (the decoder's per-step attention of one row is core::attend_one,
// core/attend_kernels.h, unless the model rounds as Marian).
// q: [q_len rows, stride ld], k/v: [k_len rows, stride ld] (head h = columns [h*dh, (h+1)*dh)).
// ctx: [q_len rows, stride d]. scores: scratch of q_len*k_len floats. Every query sees every key.
// weights, when given, receives the attention weights [n_heads, q_len, k_len].
void attend(const float* q, const float* k, const float* v, int q_len, int k_len, int d, int ld, int n_heads,
            AttentionRounding rounding, float* scores, float* ctx, float* weights = nullptr);

// Embeds ids: out[i] = E[ids[i]] * scale + positions[i * position_stride .. + d).
// position_stride = d walks the table (a whole sequence), 0 repeats one position (one decoder step).
void embed(const Embedding& table, float scale, const int32_t* ids, int n, int d, const float* positions,
           size_t position_stride, float* out);

// Row-wise work is split over the batch's threads in parts of at least this many rows.
constexpr int kRowsPerPart = 4;

// One residual sublayer around `sublayer(in, out)`, which writes rows x d values.
//   post-norm: x = LN(x + f(x));   pre-norm: x = x + f(LN(x)).
// `normed` and `out` are scratch of rows*d floats.
template <class Sublayer>
void residual(float* x, int rows, int d, const Norm& norm, bool pre_norm, float eps, float* normed,
              float* out, Sublayer&& sublayer) {
  const auto at = [d](float* p, int row) { return p + static_cast<size_t>(row) * d; };
  if (pre_norm) {
    core::split_range(rows, kRowsPerPart, [&](int begin, int end, int) {
      core::layer_norm(at(x, begin), end - begin, d, norm.gamma, norm.beta, eps, at(normed, begin));
    });
    sublayer(static_cast<const float*>(normed), out);
    core::split_range(rows, kRowsPerPart, [&](int begin, int end, int) {
      core::add_in_place(at(x, begin), at(out, begin), static_cast<size_t>(end - begin) * d);
    });
  } else {
    sublayer(static_cast<const float*>(x), out);
    core::split_range(rows, kRowsPerPart, [&](int begin, int end, int) {
      core::add_in_place(at(x, begin), at(out, begin), static_cast<size_t>(end - begin) * d);
      core::layer_norm(at(x, begin), end - begin, d, norm.gamma, norm.beta, eps, at(x, begin));
    });
  }
}

// out = fc2(act(fc1(x))); hidden: scratch of rows*ffn floats.
void feed_forward(const Linear& fc1, const Linear& fc2, core::Activation act, const float* x, int rows,
                  float* hidden, float* out);

}  // namespace models
