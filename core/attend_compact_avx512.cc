// One query row's attention over compact (int8 or f16) keys and values with AVX-512, one head at a time, as
// core/attend_avx512.cc does over f32 ones: each row's values widen to floats 16 at a time as they are read,
// and an int8 row's head scale multiplies the key's score and the value's softmax weight.
#include <immintrin.h>

#include <cmath>
#include <limits>

#include "core/attend_avx512_math.h"
#include "core/attend_compact.h"

namespace core {

namespace {

using namespace attend_avx512;

// How a row is read: load(row, at) widens values at..at+15 of row `row`; scale(row, h) is head h's factor.
struct Int8Reader {
  Int8Rows rows;
  int d, n_heads;
  NMT_AVX512 __m512 load(size_t row, int at) const {
    const auto* p = reinterpret_cast<const __m128i*>(rows.values + row * d + at);
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(p)));
  }
  float scale(size_t row, int h) const { return rows.scales[row * n_heads + h]; }
};

struct HalfReader {
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
          key_scales[t] = k.scale(r, h);
        }
      }
      const __mmask16 valid = static_cast<__mmask16>(n == 16 ? 0xFFFFu : (1u << n) - 1);
      const __m512 dots = _mm512_mul_ps(transpose_sum16(acc), _mm512_load_ps(key_scales));
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
      const __m512 p0 = _mm512_set1_ps(s[j] * v.scale(r0, h));
      const __m512 p1 = _mm512_set1_ps(s[j + 1] * v.scale(r1, h));
      for (int i = 0; i < kVecs; ++i) {
        even[i] = _mm512_fmadd_ps(p0, v.load(r0, col + 16 * i), even[i]);
        odd[i] = _mm512_fmadd_ps(p1, v.load(r1, col + 16 * i), odd[i]);
      }
    }
    if (j < len) {
      const size_t r0 = row(j);
      const __m512 p0 = _mm512_set1_ps(s[j] * v.scale(r0, h));
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

void attend_one_int8_avx512(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                            int n_heads, float* scores, float* ctx) {
  attend_any(q, Int8Reader{k, d, n_heads}, Int8Reader{v, d, n_heads}, entries, len, d, n_heads, scores, ctx);
}

void attend_one_half_avx512(const float* q, HalfRows k, HalfRows v, const int32_t* entries, int len, int d,
                            int n_heads, float* scores, float* ctx) {
  attend_any(q, HalfReader{k, d}, HalfReader{v, d}, entries, len, d, n_heads, scores, ctx);
}

}  // namespace core
