// The decoder's per-step attention, portable form (core/attend_avx512.cc is the AVX-512 one), and the
// choice between them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/attend_kernels.h"
#include "core/fast_exp.h"
#include "core/kernels.h"
#include "core/simd.h"

namespace core {

namespace {

// Inlined into attend_one (and so into each of its SIMD clones): a call per head would cost more than it
// does.
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
  for (int h = 0; h < n_heads; ++h) softmax(scores + h * len, len);
  std::memset(ctx, 0, sizeof(float) * d);
  for (int j = 0; j < len; ++j) {  // ctx_h += p[h][j] * v_j,h
    const float* vj = v + offset(j);
    for (int h = 0; h < n_heads; ++h) axpy_inline(scores[h * len + j], vj + h * dh, ctx + h * dh, dh);
  }
}

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
    for (int j = 0; j < len; ++j) s[j] = exp_nonpositive_or_zero(s[j] - max);
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

}  // namespace

void attend_one(const float* q, const float* k, const float* v, const int32_t* entries, int len, int d,
                int n_heads, float* scores, float* ctx) {
  if (d % n_heads == 0 && attend_one_avx512_supports(d / n_heads)) {
    attend_one_avx512(q, k, v, entries, len, d, n_heads, scores, ctx);
  } else {
    attend_one_portable(q, k, v, entries, len, d, n_heads, scores, ctx);
  }
}

size_t attend_one_scratch(int len, int n_heads) {
  return std::max(static_cast<size_t>(n_heads) * len, attend_one_avx512_scratch(len));
}

}  // namespace core
