// One query row's attention with AVX-512, one head at a time. The portable form (core/attend_one.cc) ends
// every key's dot product with its own 16-lane reduction; here 16 keys' dot products are reduced together, in
// a transpose (15 adds and 30 shuffles for 16 keys instead of 16 reduction trees), the softmax works on whole
// vectors, and the weighted sum of values runs two accumulator chains instead of one.
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_ps() (self-initialised) as a masked-off source, which
// -Wmaybe-uninitialized reports once inlined here: a false positive (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cmath>
#include <limits>

#include "core/attend_kernels.h"
#include "core/fast_exp.h"
#include "core/packed_gemm.h"

namespace core {

namespace {

#define NMT_AVX512 __attribute__((target("avx512f")))

// exp(x) for x <= 0 and 0 below -87 (also for -inf): fast_exp.h's exp_nonpositive_or_zero on 16 lanes,
// with its constants (the products fused here).
NMT_AVX512 inline __m512 exp_nonpositive_or_zero16(__m512 x) {
  using namespace fast_exp;
  const __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_GE_OQ);
  // Clamp to -87 on the bits: for x <= 0 a larger magnitude is a larger unsigned pattern.
  x = _mm512_castsi512_ps(
      _mm512_min_epu32(_mm512_castps_si512(x), _mm512_set1_epi32(static_cast<int>(kMinus87Bits))));
  const __m512 magic = _mm512_set1_ps(kRoundingMagic);
  const __m512 shifted = _mm512_fmadd_ps(x, _mm512_set1_ps(kLog2e), magic);
  const __m512 n = _mm512_sub_ps(shifted, magic);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);  // x - n ln 2
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kP0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  const __m512 exp_r = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  const __m512i two_to_n = _mm512_slli_epi32(
      _mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(shifted),
                                        _mm512_set1_epi32(static_cast<int>(kRoundingMagicBits))),
                       _mm512_set1_epi32(127)),
      23);
  return _mm512_maskz_mul_ps(keep, exp_r, _mm512_castsi512_ps(two_to_n));
}

// Lane t of the result = the sum of the 16 lanes of a[t], always in the same order.
NMT_AVX512 inline __m512 transpose_sum16(const __m512 (&a)[16]) {
  __m512 b[8], c[4], d[2];
  // b[j]: lanes 0-7 hold key 2j's sums of lane pairs (i, i + 8), lanes 8-15 key 2j + 1's.
  for (int j = 0; j < 8; ++j) {
    b[j] = _mm512_add_ps(_mm512_shuffle_f32x4(a[2 * j], a[2 * j + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_f32x4(a[2 * j], a[2 * j + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  }
  // c[j]: 4 lanes per key, keys 4j .. 4j + 3 in order.
  for (int j = 0; j < 4; ++j) {
    c[j] = _mm512_add_ps(_mm512_shuffle_f32x4(b[2 * j], b[2 * j + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(b[2 * j], b[2 * j + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  }
  // d[j]: 2 lanes per key, keys 8j .. 8j + 7 in order.
  const __m512i pairs_lo = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29);
  const __m512i pairs_hi = _mm512_setr_epi32(2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
  for (int j = 0; j < 2; ++j) {
    d[j] = _mm512_add_ps(_mm512_permutex2var_ps(c[2 * j], pairs_lo, c[2 * j + 1]),
                         _mm512_permutex2var_ps(c[2 * j], pairs_hi, c[2 * j + 1]));
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return _mm512_add_ps(_mm512_permutex2var_ps(d[0], even, d[1]), _mm512_permutex2var_ps(d[0], odd, d[1]));
}

// The max and the sum of the 16 lanes, in every lane (halving: a fixed order).
NMT_AVX512 inline __m512 max_all(__m512 x) {
  x = _mm512_max_ps(x, _mm512_shuffle_f32x4(x, x, _MM_SHUFFLE(1, 0, 3, 2)));
  x = _mm512_max_ps(x, _mm512_shuffle_f32x4(x, x, _MM_SHUFFLE(2, 3, 0, 1)));
  x = _mm512_max_ps(x, _mm512_permute_ps(x, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm512_max_ps(x, _mm512_permute_ps(x, _MM_SHUFFLE(2, 3, 0, 1)));
}
NMT_AVX512 inline __m512 sum_all(__m512 x) {
  x = _mm512_add_ps(x, _mm512_shuffle_f32x4(x, x, _MM_SHUFFLE(1, 0, 3, 2)));
  x = _mm512_add_ps(x, _mm512_shuffle_f32x4(x, x, _MM_SHUFFLE(2, 3, 0, 1)));
  x = _mm512_add_ps(x, _mm512_permute_ps(x, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm512_add_ps(x, _mm512_permute_ps(x, _MM_SHUFFLE(2, 3, 0, 1)));
}

template <int kVecs>
NMT_AVX512 void attend_heads(const float* q, const float* k, const float* v, const int32_t* entries, int len,
                             int d, int n_heads, float* s, float* ctx) {
  constexpr int kDh = kVecs * 16;
  const __m512 scale = _mm512_set1_ps(1.0f / std::sqrt(static_cast<float>(kDh)));
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  auto row = [&](int j) { return static_cast<size_t>(entries ? entries[j] : j) * d; };
  for (int h = 0; h < n_heads; ++h) {
    const int col = h * kDh;
    __m512 qh[kVecs];
    for (int i = 0; i < kVecs; ++i) qh[i] = _mm512_loadu_ps(q + col + 16 * i);
    // Scores, 16 keys at a time; lanes past len get -inf (exp 0, no effect on the max).
    __m512 max = minus_inf;
    for (int j0 = 0; j0 < len; j0 += 16) {
      const int n = len - j0 < 16 ? len - j0 : 16;
      __m512 acc[16];
#pragma GCC unroll 16
      for (int t = 0; t < 16; ++t) {
        acc[t] = _mm512_setzero_ps();
        if (t < n) {
          const float* kj = k + row(j0 + t) + col;
          for (int i = 0; i < kVecs; ++i)
            acc[t] = _mm512_fmadd_ps(qh[i], _mm512_loadu_ps(kj + 16 * i), acc[t]);
        }
      }
      const __mmask16 valid = static_cast<__mmask16>(n == 16 ? 0xFFFFu : (1u << n) - 1);
      const __m512 scores = _mm512_mask_mul_ps(minus_inf, valid, transpose_sum16(acc), scale);
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
    // ctx_h = sum_j p_j v_j, even and odd keys in two chains; normalised once at the end.
    __m512 even[kVecs], odd[kVecs];
    for (int i = 0; i < kVecs; ++i) even[i] = odd[i] = _mm512_setzero_ps();
    int j = 0;
    for (; j + 1 < len; j += 2) {
      const float* v0 = v + row(j) + col;
      const float* v1 = v + row(j + 1) + col;
      const __m512 p0 = _mm512_set1_ps(s[j]), p1 = _mm512_set1_ps(s[j + 1]);
      for (int i = 0; i < kVecs; ++i) {
        even[i] = _mm512_fmadd_ps(p0, _mm512_loadu_ps(v0 + 16 * i), even[i]);
        odd[i] = _mm512_fmadd_ps(p1, _mm512_loadu_ps(v1 + 16 * i), odd[i]);
      }
    }
    if (j < len) {
      const float* v0 = v + row(j) + col;
      const __m512 p0 = _mm512_set1_ps(s[j]);
      for (int i = 0; i < kVecs; ++i) even[i] = _mm512_fmadd_ps(p0, _mm512_loadu_ps(v0 + 16 * i), even[i]);
    }
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), sum_all(sum));
    for (int i = 0; i < kVecs; ++i)
      _mm512_storeu_ps(ctx + col + 16 * i, _mm512_mul_ps(_mm512_add_ps(even[i], odd[i]), inv));
  }
}

}  // namespace

bool attend_one_avx512_supports(int head_size) {
  // The packed kernels' choice: NMT_CPU=avx2, blas or portable also take this path off, for A/B runs.
  return packed_isa() == PackedIsa::kAvx512 && (head_size == 32 || head_size == 64 || head_size == 128);
}

void attend_one_avx512(const float* q, const float* k, const float* v, const int32_t* entries, int len, int d,
                       int n_heads, float* scores, float* ctx) {
  switch (d / n_heads) {
    case 32:
      return attend_heads<2>(q, k, v, entries, len, d, n_heads, scores, ctx);
    case 64:
      return attend_heads<4>(q, k, v, entries, len, d, n_heads, scores, ctx);
    default:
      return attend_heads<8>(q, k, v, entries, len, d, n_heads, scores, ctx);
  }
}

}  // namespace core
