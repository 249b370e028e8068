// One query row's attention with AVX-512, one head at a time, over f32, int8 or f16 keys and values: one
// kernel, instantiated per row type. The portable forms (core/attend_one.cc, core/attend_compact.cc) end
// every key's dot product with its own 16-lane reduction; here 16 keys' dot products are reduced together, in
// a transpose (15 adds and 30 shuffles for 16 keys instead of 16 reduction trees), the softmax works on whole
// vectors, and the weighted sum of values runs two accumulator chains instead of one. Compact rows widen to
// floats 16 at a time as they are read, and an int8 row's head scale multiplies the key's score and the
// value's softmax weight.
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_ps() (self-initialised) as a masked-off source, which
// -Wmaybe-uninitialized reports once inlined here: a false positive (GCC bug 105593).
#if !defined(__clang__)  // clang has no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cmath>
#include <limits>

#include "core/attend_avx512_math.h"
#include "core/attend_compact.h"
#include "core/attend_kernels.h"
#include "core/packed_gemm.h"

namespace core {

namespace {

using namespace attend_avx512;

// How a row is read: load(row, at) widens values at..at+15 of row `row`; scale(row, h) is head h's factor,
// consulted only when kScaled (unscaled rows skip the multiplies, which would be by exactly 1).
struct F32Reader {
  static constexpr bool kScaled = false;
  const float* values;
  int d;
  NMT_AVX512 __m512 load(size_t row, int at) const { return _mm512_loadu_ps(values + row * d + at); }
  float scale(size_t, int) const { return 1.0f; }
};

struct Int8Reader {
  static constexpr bool kScaled = true;
  Int8Rows rows;
  int d, n_heads;
  NMT_AVX512 __m512 load(size_t row, int at) const {
    const auto* p = reinterpret_cast<const __m128i*>(rows.values + row * d + at);
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(p)));
  }
  float scale(size_t row, int h) const { return rows.scales[row * n_heads + h]; }
};

struct HalfReader {
  static constexpr bool kScaled = false;
  HalfRows rows;
  int d;
  NMT_AVX512 __m512 load(size_t row, int at) const {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows.values + row * d + at)));
  }
  float scale(size_t, int) const { return 1.0f; }
};

template <int kVecs, class Reader>
NMT_AVX512 void attend_heads(const float* q, const Reader& k, const Reader& v, const int32_t* entries,
                             int len, int n_heads, float* s, float* ctx) {
  constexpr int kDh = kVecs * 16;
  const __m512 scale = _mm512_set1_ps(1.0f / std::sqrt(static_cast<float>(kDh)));
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  auto row = [&](int j) { return static_cast<size_t>(entries ? entries[j] : j); };
  // Softmax weight p of row r, times the row's head scale when it has one.
  auto weight = [&](float p, size_t r, int h) { return Reader::kScaled ? p * v.scale(r, h) : p; };
  for (int h = 0; h < n_heads; ++h) {
    const int col = h * kDh;
    __m512 qh[kVecs];
    for (int i = 0; i < kVecs; ++i) qh[i] = _mm512_loadu_ps(q + col + 16 * i);
    // Scores, 16 keys at a time; lanes past len get -inf (exp 0, no effect on the max).
    __m512 max = minus_inf;
    for (int j0 = 0; j0 < len; j0 += 16) {
      const int n = len - j0 < 16 ? len - j0 : 16;
      __m512 acc[16];
      alignas(64) float key_scales[16] = {};
#pragma GCC unroll 16
      for (int t = 0; t < 16; ++t) {
        acc[t] = _mm512_setzero_ps();
        if (t < n) {
          const size_t r = row(j0 + t);
          for (int i = 0; i < kVecs; ++i) acc[t] = _mm512_fmadd_ps(qh[i], k.load(r, col + 16 * i), acc[t]);
          if constexpr (Reader::kScaled) key_scales[t] = k.scale(r, h);
        }
      }
      __m512 dots = transpose_sum16(acc);
      if constexpr (Reader::kScaled) dots = _mm512_mul_ps(dots, _mm512_load_ps(key_scales));
      const __mmask16 valid = static_cast<__mmask16>(n == 16 ? 0xFFFFu : (1u << n) - 1);
      const __m512 scores = _mm512_mask_mul_ps(minus_inf, valid, dots, scale);
      _mm512_storeu_ps(s + j0, scores);
      max = _mm512_max_ps(max, scores);
    }
    const __m512 max_everywhere = max_all(max);
    __m512 sum = _mm512_setzero_ps();
    for (int j0 = 0; j0 < len; j0 += 16) {
      const __m512 e = exp_nonpositive_or_zero16(_mm512_sub_ps(_mm512_loadu_ps(s + j0), max_everywhere));
      _mm512_storeu_ps(s + j0, e);
      sum = _mm512_add_ps(sum, e);
    }
    // ctx_h = sum_j p_j scale_j v_j, even and odd keys in two chains; normalised once at the end.
    __m512 even[kVecs], odd[kVecs];
    for (int i = 0; i < kVecs; ++i) even[i] = odd[i] = _mm512_setzero_ps();
    int j = 0;
    for (; j + 1 < len; j += 2) {
      const size_t r0 = row(j), r1 = row(j + 1);
      const __m512 p0 = _mm512_set1_ps(weight(s[j], r0, h));
      const __m512 p1 = _mm512_set1_ps(weight(s[j + 1], r1, h));
      for (int i = 0; i < kVecs; ++i) {
        even[i] = _mm512_fmadd_ps(p0, v.load(r0, col + 16 * i), even[i]);
        odd[i] = _mm512_fmadd_ps(p1, v.load(r1, col + 16 * i), odd[i]);
      }
    }
    if (j < len) {
      const size_t r0 = row(j);
      const __m512 p0 = _mm512_set1_ps(weight(s[j], r0, h));
      for (int i = 0; i < kVecs; ++i) even[i] = _mm512_fmadd_ps(p0, v.load(r0, col + 16 * i), even[i]);
    }
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), sum_all(sum));
    for (int i = 0; i < kVecs; ++i)
      _mm512_storeu_ps(ctx + col + 16 * i, _mm512_mul_ps(_mm512_add_ps(even[i], odd[i]), inv));
  }
}

template <class Reader>
void attend_any(const float* q, const Reader& k, const Reader& v, const int32_t* entries, int len, int d,
                int n_heads, float* scores, float* ctx) {
  switch (d / n_heads) {
    case 32:
      return attend_heads<2>(q, k, v, entries, len, n_heads, scores, ctx);
    case 64:
      return attend_heads<4>(q, k, v, entries, len, n_heads, scores, ctx);
    default:
      return attend_heads<8>(q, k, v, entries, len, n_heads, scores, ctx);
  }
}

}  // namespace

bool attend_one_avx512_supports(int head_size) {
  // The packed kernels' choice: NMT_CPU=avx2, blas or portable also take this path off, for A/B runs.
  return packed_isa() == PackedIsa::kAvx512 && (head_size == 32 || head_size == 64 || head_size == 128);
}

void attend_one_avx512(const float* q, const float* k, const float* v, const int32_t* entries, int len, int d,
                       int n_heads, float* scores, float* ctx) {
  attend_any(q, F32Reader{k, d}, F32Reader{v, d}, entries, len, d, n_heads, scores, ctx);
}

void attend_one_int8_avx512(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                            int n_heads, float* scores, float* ctx) {
  attend_any(q, Int8Reader{k, d, n_heads}, Int8Reader{v, d, n_heads}, entries, len, d, n_heads, scores, ctx);
}

void attend_one_half_avx512(const float* q, HalfRows k, HalfRows v, const int32_t* entries, int len, int d,
                            int n_heads, float* scores, float* ctx) {
  attend_any(q, HalfReader{k, d}, HalfReader{v, d}, entries, len, d, n_heads, scores, ctx);
}

}  // namespace core
