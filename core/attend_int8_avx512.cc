// One query row's attention over int8 keys and values with AVX-512, one head at a time, as
// core/attend_avx512.cc does over f32 ones: each row's 16 int8 values widen to 16 floats as they are read,
// and its head's scale multiplies the key's score and the value's softmax weight.
#include <immintrin.h>

#include <cmath>
#include <limits>

#include "core/attend_avx512_math.h"
#include "core/attend_int8.h"

namespace core {

namespace {

using namespace attend_avx512;

NMT_AVX512 inline __m512 load16_int8(const int8_t* p) {
  return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}

template <int kVecs>
NMT_AVX512 void attend_heads_int8(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len,
                                  int d, int n_heads, float* s, float* ctx) {
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
          const int8_t* kj = k.values + r * d + col;
          for (int i = 0; i < kVecs; ++i) acc[t] = _mm512_fmadd_ps(qh[i], load16_int8(kj + 16 * i), acc[t]);
          key_scales[t] = k.scales[r * n_heads + h];
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
      const int8_t* v0 = v.values + r0 * d + col;
      const int8_t* v1 = v.values + r1 * d + col;
      const __m512 p0 = _mm512_set1_ps(s[j] * v.scales[r0 * n_heads + h]);
      const __m512 p1 = _mm512_set1_ps(s[j + 1] * v.scales[r1 * n_heads + h]);
      for (int i = 0; i < kVecs; ++i) {
        even[i] = _mm512_fmadd_ps(p0, load16_int8(v0 + 16 * i), even[i]);
        odd[i] = _mm512_fmadd_ps(p1, load16_int8(v1 + 16 * i), odd[i]);
      }
    }
    if (j < len) {
      const size_t r0 = row(j);
      const int8_t* v0 = v.values + r0 * d + col;
      const __m512 p0 = _mm512_set1_ps(s[j] * v.scales[r0 * n_heads + h]);
      for (int i = 0; i < kVecs; ++i) even[i] = _mm512_fmadd_ps(p0, load16_int8(v0 + 16 * i), even[i]);
    }
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), sum_all(sum));
    for (int i = 0; i < kVecs; ++i)
      _mm512_storeu_ps(ctx + col + 16 * i, _mm512_mul_ps(_mm512_add_ps(even[i], odd[i]), inv));
  }
}

}  // namespace

void attend_one_int8_avx512(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                            int n_heads, float* scores, float* ctx) {
  switch (d / n_heads) {
    case 32:
      return attend_heads_int8<2>(q, k, v, entries, len, d, n_heads, scores, ctx);
    case 64:
      return attend_heads_int8<4>(q, k, v, entries, len, d, n_heads, scores, ctx);
    default:
      return attend_heads_int8<8>(q, k, v, entries, len, d, n_heads, scores, ctx);
  }
}

}  // namespace core
