// The compact caches' row conversions and the portable form of their attention
// (core/attend_avx512.cc holds the AVX-512 one), and the choice between the forms.
#include "core/attend_compact.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/attend_kernels.h"
#include "core/cpu.h"
#include "core/half.h"
#include "core/kernels.h"
#include "core/simd.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace core {

// Every cache entry of every step comes here, so both loops vectorize (clones per CPU level): adding and
// subtracting 1.5 x 2^23 rounds to nearest even exactly as nearbyint does for |v| <= 127, without a libm call
// per value, and the max is exact in any order. The product and the sum stay two roundings in every clone
// (NMT_NO_FMA_CONTRACTION), so every clone gives the same values.
NMT_SIMD_CLONES NMT_NO_FMA_CONTRACTION void quantize_row_int8(const float* x, int d, int n_heads,
                                                              int8_t* values, float* scales) {
  constexpr float kRound = 12582912.0f;
  const int dh = d / n_heads;
  for (int h = 0; h < n_heads; ++h) {
    const float* xh = x + h * dh;
    // 16 running maxima in a GCC vector (a plain loop stays scalar); NaN and -0 never replace a maximum.
    Vec16 maxima = {}, v;
    int at = 0;
    for (; at + 16 <= dh; at += 16) {
      load16(v, xh + at);
      const Vec16 a = v < 0.0f ? -v : v;
      maxima = a > maxima ? a : maxima;
    }
    float lanes[16];
    std::memcpy(lanes, &maxima, sizeof lanes);
    for (; at < dh; ++at) {
      const float a = std::fabs(xh[at]);
      lanes[0] = a > lanes[0] ? a : lanes[0];
    }
    float absmax = 0.0f;
    for (const float lane : lanes) absmax = lane > absmax ? lane : absmax;
    scales[h] = absmax / 127.0f;
    const float inv = absmax > 0.0f ? 127.0f / absmax : 0.0f;
    int8_t* out = values + h * dh;
    for (int i = 0; i < dh; ++i) {
      const float product = xh[i] * inv;
      float r = (product + kRound) - kRound;
      r = r > 127.0f ? 127.0f : r;
      r = r < -127.0f ? -127.0f : r;
      out[i] = static_cast<int8_t>(static_cast<int>(r));
    }
  }
}

#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) static void round_row_half_f16c(const float* x, int d, uint16_t* values) {
  int i = 0;
  for (; i + 8 <= d; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(values + i), h);
  }
  for (; i < d; ++i) values[i] = float_to_half(x[i]);
}
#endif

void round_row_half(const float* x, int d, uint16_t* values) {
#if defined(__x86_64__)
  static const bool has_f16c = cpu_features().f16c && cpu_isa() != CpuIsa::kPortable;
  if (has_f16c) return round_row_half_f16c(x, d, values);
#endif
  for (int i = 0; i < d; ++i) values[i] = float_to_half(x[i]);
}

namespace {

constexpr int kChunk = 64;  // values widened to floats at a time

// How the portable form reads a row: widen(row, at, n, out) writes values at..at+n of row `row` as floats;
// scale(row, h) is head h's factor.
struct Int8Reader {
  Int8Rows rows;
  int d, n_heads;
  NMT_INLINE void widen(size_t row, int at, int n, float* out) const {
    const int8_t* p = rows.values + row * d + at;
    for (int i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
  }
  NMT_INLINE float scale(size_t row, int h) const { return rows.scales[row * n_heads + h]; }
};

struct HalfReader {
  HalfRows rows;
  int d;
  NMT_INLINE void widen(size_t row, int at, int n, float* out) const {
    half_to_float(rows.values + row * d + at, out, static_cast<size_t>(n));
  }
  NMT_INLINE float scale(size_t, int) const { return 1.0f; }
};

template <class Reader>
NMT_INLINE void attend_compact(const float* q, const Reader& k, const Reader& v, const int32_t* entries,
                               int len, int d, int n_heads, float* scores, float* ctx) {
  const int dh = d / n_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  float buf[kChunk];
  for (int h = 0; h < n_heads; ++h) {
    float* s = scores + static_cast<size_t>(h) * len;
    for (int j = 0; j < len; ++j) {  // s[j] = (q_h . k_j,h) * scale
      const size_t row = static_cast<size_t>(entries ? entries[j] : j);
      float dot = 0.0f;
      for (int at = 0; at < dh; at += kChunk) {
        const int n = std::min(kChunk, dh - at);
        k.widen(row, h * dh + at, n, buf);
        const float* qh = q + h * dh + at;
#pragma omp simd reduction(+ : dot)
        for (int i = 0; i < n; ++i) dot += qh[i] * buf[i];
      }
      s[j] = dot * k.scale(row, h) * scale;
    }
    softmax(s, len);
    float* out = ctx + h * dh;
    std::memset(out, 0, sizeof(float) * dh);
    for (int j = 0; j < len; ++j) {  // ctx_h += p_j * v_j,h
      const size_t row = static_cast<size_t>(entries ? entries[j] : j);
      const float p = s[j] * v.scale(row, h);
      for (int at = 0; at < dh; at += kChunk) {
        const int n = std::min(kChunk, dh - at);
        v.widen(row, h * dh + at, n, buf);
#pragma omp simd
        for (int i = 0; i < n; ++i) out[at + i] += p * buf[i];
      }
    }
  }
}

NMT_SIMD_CLONES
void attend_one_int8_portable(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                              int n_heads, float* scores, float* ctx) {
  attend_compact(q, Int8Reader{k, d, n_heads}, Int8Reader{v, d, n_heads}, entries, len, d, n_heads, scores,
                 ctx);
}

NMT_SIMD_CLONES
void attend_one_half_portable(const float* q, HalfRows k, HalfRows v, const int32_t* entries, int len, int d,
                              int n_heads, float* scores, float* ctx) {
  attend_compact(q, HalfReader{k, d}, HalfReader{v, d}, entries, len, d, n_heads, scores, ctx);
}

bool avx512_form(int d, int n_heads) { return d % n_heads == 0 && attend_one_avx512_supports(d / n_heads); }

}  // namespace

void attend_one_int8(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                     int n_heads, float* scores, float* ctx) {
  if (avx512_form(d, n_heads)) return attend_one_int8_avx512(q, k, v, entries, len, d, n_heads, scores, ctx);
  attend_one_int8_portable(q, k, v, entries, len, d, n_heads, scores, ctx);
}

void attend_one_half(const float* q, HalfRows k, HalfRows v, const int32_t* entries, int len, int d,
                     int n_heads, float* scores, float* ctx) {
  if (avx512_form(d, n_heads)) return attend_one_half_avx512(q, k, v, entries, len, d, n_heads, scores, ctx);
  attend_one_half_portable(q, k, v, entries, len, d, n_heads, scores, ctx);
}

}  // namespace core
