// AVX2+FMA tile: up to 6 rows x 16 columns (one panel), 12 accumulators in registers.
#include <immintrin.h>

#include <cstdint>

#include "core/packed_kernels.h"

namespace core::packed {

namespace {

#define NMT_AVX2 __attribute__((target("avx2,fma")))

// Lane mask for the first n (0..8) of 8 floats.
NMT_AVX2 inline __m256i mask_of(int n) {
  n = n < 0 ? 0 : (n > 8 ? 8 : n);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lanes);
}

template <int R>
NMT_AVX2 void tile(const float* a, size_t lda, int k, const float* p0, const float* bias, float* c,
                   size_t ldc, int cols) {
  __m256 lo[R], hi[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
  for (int i = 0; i < k; ++i) {
    const __m256 w0 = _mm256_load_ps(p0 + static_cast<size_t>(i) * 16);
    const __m256 w1 = _mm256_load_ps(p0 + static_cast<size_t>(i) * 16 + 8);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_broadcast_ss(a + r * lda + i);
      lo[r] = _mm256_fmadd_ps(x, w0, lo[r]);
      hi[r] = _mm256_fmadd_ps(x, w1, hi[r]);
    }
  }
  const __m256i m0 = mask_of(cols), m1 = mask_of(cols - 8);
  const __m256 b0 = bias ? _mm256_maskload_ps(bias, m0) : _mm256_setzero_ps();
  const __m256 b1 = bias ? _mm256_maskload_ps(bias + 8, m1) : _mm256_setzero_ps();
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    _mm256_maskstore_ps(c + r * ldc, m0, _mm256_add_ps(lo[r], b0));
    _mm256_maskstore_ps(c + r * ldc + 8, m1, _mm256_add_ps(hi[r], b1));
  }
}

}  // namespace

void tile_avx2(const float* a, size_t lda, int rows, int k, const float* p0, const float* bias, float* c,
               size_t ldc, int cols) {
  switch (rows) {
    case 6:
      return tile<6>(a, lda, k, p0, bias, c, ldc, cols);
    case 5:
      return tile<5>(a, lda, k, p0, bias, c, ldc, cols);
    case 4:
      return tile<4>(a, lda, k, p0, bias, c, ldc, cols);
    case 3:
      return tile<3>(a, lda, k, p0, bias, c, ldc, cols);
    case 2:
      return tile<2>(a, lda, k, p0, bias, c, ldc, cols);
    case 1:
      return tile<1>(a, lda, k, p0, bias, c, ldc, cols);
    default:
      return;
  }
}

}  // namespace core::packed
