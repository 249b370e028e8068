// Vector helpers of the AVX-512 attention kernel (core/attend_avx512.cc): the
// softmax's exp, and the reductions over 16 keys, each in a fixed order.
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_ps() (self-initialised) as a masked-off source, which
// -Wmaybe-uninitialized reports once inlined here: a false positive (GCC bug 105593).
#pragma once
#if !defined(__clang__)  // clang has no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "core/fast_exp.h"

namespace core {
namespace attend_avx512 {

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

}  // namespace attend_avx512
}  // namespace core
