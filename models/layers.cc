#include "models/layers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/attend_kernels.h"
#include "core/fast_exp.h"
#include "core/gemm.h"
#include "core/simd.h"

namespace models {

void project(const Linear& l, const float* x, int rows, float* y) {
  if (l.packed)
    core::packed_linear(x, rows, *l.packed, l.bias, y);
  else
    core::linear(x, rows, l.in, l.weight, l.bias, l.out, y);
}

QkvRows project_qkv(const AttentionWeights& a, const float* in, int rows, int d, float* out, size_t block) {
  if (a.qkv.packed) {
    project(a.qkv, in, rows, out);
    return {out, out + d, out + 2 * d, 3 * d};
  }
  project(a.q, in, rows, out);
  project(a.k, in, rows, out + block);
  project(a.v, in, rows, out + 2 * block);
  return {out, out + block, out + 2 * block, d};
}

void attend(const float* q, const float* k, const float* v, int q_len, int k_len, int d, int ld, int n_heads,
            bool causal, float* scores, float* ctx) {
  const int dh = d / n_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  for (int h = 0; h < n_heads; ++h) {
    const int col = h * dh;
    // scores[q_len, k_len] = (Q_h * scale) K_h^T
    core::gemm(false, true, q_len, k_len, dh, scale, q + col, ld, k + col, ld, 0.0f, scores, k_len);
    for (int i = 0; i < q_len; ++i) {
      float* row = scores + static_cast<size_t>(i) * k_len;
      if (causal) {
        for (int j = i + 1; j < k_len; ++j) row[j] = -std::numeric_limits<float>::infinity();
      }
      core::softmax(row, k_len);
    }
    // ctx_h[q_len, dh] = P V_h
    core::gemm(false, false, q_len, dh, k_len, 1.0f, scores, k_len, v + col, ld, 0.0f, ctx + col, d);
  }
}

namespace {

// Inlined into attend_one (and so into each of its SIMD clones) instead of calling core::dot/axpy per head.
NMT_INLINE float dot_inline(const float* a, const float* b, int n) {
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

NMT_INLINE void axpy_inline(float alpha, const float* x, float* y, int n) {
#pragma omp simd
  for (int i = 0; i < n; ++i) y[i] += alpha * x[i];
}

// The body of both attend_one forms for any head size: key/value row j is at k + offset(j), v + offset(j).
template <class RowOffset>
NMT_INLINE void attend_rows_any(const float* q, const float* k, const float* v, RowOffset offset, int len,
                                int d, int n_heads, float* scores, float* ctx) {
  const int dh = d / n_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  for (int j = 0; j < len; ++j) {  // scores[h][j] = (q_h . k_j,h) * scale
    const float* kj = k + offset(j);
    for (int h = 0; h < n_heads; ++h) scores[h * len + j] = dot_inline(q + h * dh, kj + h * dh, dh) * scale;
  }
  for (int h = 0; h < n_heads; ++h) core::softmax(scores + h * len, len);
  std::memset(ctx, 0, sizeof(float) * d);
  for (int j = 0; j < len; ++j) {  // ctx_h += p[h][j] * v_j,h
    const float* vj = v + offset(j);
    for (int h = 0; h < n_heads; ++h) axpy_inline(scores[h * len + j], vj + h * dh, ctx + h * dh, dh);
  }
}

using core::load16;
using core::Vec16;
typedef float Vec8 __attribute__((vector_size(32)));
// Sum of the 16 lanes by halving (a fixed order): a short dependency chain instead of 15 serial adds.
NMT_INLINE float sum16(const Vec16& v) {
  Vec8 lo, hi;
  std::memcpy(&lo, &v, sizeof lo);
  std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
  const Vec8 s8 = lo + hi;
  const float s4[4] = {s8[0] + s8[4], s8[1] + s8[5], s8[2] + s8[6], s8[3] + s8[7]};
  return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

// The same for heads of kVecs x 16 floats, one head at a time: the head's query and its weighted sum of
// values stay in registers over all `len` rows (the generic form re-reads and re-writes ctx for every row,
// and ends each dot product with 15 dependent adds).
template <int kVecs, class RowOffset>
NMT_INLINE void attend_rows_fixed(const float* q, const float* k, const float* v, RowOffset offset, int len,
                                  int n_heads, float* scores, float* ctx) {
  constexpr int kDh = kVecs * 16;
  const float scale = 1.0f / std::sqrt(static_cast<float>(kDh));
  for (int h = 0; h < n_heads; ++h) {
    const int col = h * kDh;
    float* s = scores + static_cast<size_t>(h) * len;
    Vec16 qh[kVecs], x;
    for (int i = 0; i < kVecs; ++i) load16(qh[i], q + col + 16 * i);
    float max = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < len; ++j) {
      const float* kj = k + offset(j) + col;
      Vec16 acc = {};
      for (int i = 0; i < kVecs; ++i) {
        load16(x, kj + 16 * i);
        acc += qh[i] * x;
      }
      s[j] = sum16(acc) * scale;
      max = max > s[j] ? max : s[j];
    }
    // Softmax inline (a call per head costs more than the head's exps); the weighted sum is normalised once
    // at the end.
    for (int j = 0; j < len; ++j) s[j] = core::exp_nonpositive_or_zero(s[j] - max);
    float sum = 0.0f;
    for (int j = 0; j < len; ++j) sum += s[j];
    Vec16 out[kVecs] = {};
    for (int j = 0; j < len; ++j) {
      const float* vj = v + offset(j) + col;
      for (int i = 0; i < kVecs; ++i) {
        load16(x, vj + 16 * i);
        out[i] += s[j] * x;
      }
    }
    const float inv = 1.0f / sum;
    for (int i = 0; i < kVecs; ++i) out[i] *= inv;
    std::memcpy(ctx + col, out, sizeof out);
  }
}

template <class RowOffset>
NMT_INLINE void attend_rows(const float* q, const float* k, const float* v, RowOffset offset, int len, int d,
                            int n_heads, float* scores, float* ctx) {
  switch (d % n_heads == 0 ? d / n_heads : 0) {
    case 32:
      return attend_rows_fixed<2>(q, k, v, offset, len, n_heads, scores, ctx);
    case 64:
      return attend_rows_fixed<4>(q, k, v, offset, len, n_heads, scores, ctx);
    case 128:
      return attend_rows_fixed<8>(q, k, v, offset, len, n_heads, scores, ctx);
    default:
      return attend_rows_any(q, k, v, offset, len, d, n_heads, scores, ctx);
  }
}

NMT_SIMD_CLONES
void attend_one_portable(const float* q, const float* k, const float* v, const int32_t* entries, int len,
                         int d, int n_heads, float* scores, float* ctx) {
  if (entries) {
    attend_rows(
        q, k, v, [=](int j) { return static_cast<size_t>(entries[j]) * d; }, len, d, n_heads, scores, ctx);
  } else {
    attend_rows(
        q, k, v, [d](int j) { return static_cast<size_t>(j) * d; }, len, d, n_heads, scores, ctx);
  }
}

void attend_one_any(const float* q, const float* k, const float* v, const int32_t* entries, int len, int d,
                    int n_heads, float* scores, float* ctx) {
  if (d % n_heads == 0 && core::attend_one_avx512_supports(d / n_heads)) {
    core::attend_one_avx512(q, k, v, entries, len, d, n_heads, scores, ctx);
  } else {
    attend_one_portable(q, k, v, entries, len, d, n_heads, scores, ctx);
  }
}

}  // namespace

void attend_one(const float* q, const float* k, const float* v, int len, int d, int n_heads, float* scores,
                float* ctx) {
  attend_one_any(q, k, v, nullptr, len, d, n_heads, scores, ctx);
}

void attend_one_gathered(const float* q, const float* k, const float* v, const int32_t* entries, int len,
                         int d, int n_heads, float* scores, float* ctx) {
  attend_one_any(q, k, v, entries, len, d, n_heads, scores, ctx);
}

size_t attend_one_scratch(int len, int n_heads) {
  return std::max(static_cast<size_t>(n_heads) * len, core::attend_one_scratch(len));
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
