// AVX-512F tile: up to 8 rows x 32 columns (two panels), 16 accumulators in registers; or 12 rows, 24.
#include <immintrin.h>

#include "core/packed_kernels.h"

namespace core::packed {

namespace {

#define NMT_AVX512 __attribute__((target("avx512f")))

NMT_AVX512 inline __mmask16 mask_of(int cols) {
  return cols >= 16 ? static_cast<__mmask16>(0xFFFF)
                    : static_cast<__mmask16>((1u << (cols > 0 ? cols : 0)) - 1);
}

template <int R, bool kTwo>
NMT_AVX512 void tile(const float* a, size_t lda, int k, const float* p0, const float* p1, const float* bias,
                     float* c, size_t ldc, int cols) {
  __m512 acc0[R], acc1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
  for (int i = 0; i < k; ++i) {
    const __m512 w0 = _mm512_load_ps(p0 + static_cast<size_t>(i) * 16);
    const __m512 w1 = kTwo ? _mm512_load_ps(p1 + static_cast<size_t>(i) * 16) : w0;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * lda + i]);
      acc0[r] = _mm512_fmadd_ps(x, w0, acc0[r]);
      if (kTwo) acc1[r] = _mm512_fmadd_ps(x, w1, acc1[r]);
    }
  }
  const __mmask16 m0 = mask_of(cols), m1 = mask_of(cols - 16);
  const __m512 b0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
  const __m512 b1 = bias && kTwo ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(c + r * ldc, m0, _mm512_add_ps(acc0[r], b0));
    if (kTwo) _mm512_mask_storeu_ps(c + r * ldc + 16, m1, _mm512_add_ps(acc1[r], b1));
  }
}

template <bool kTwo>
NMT_AVX512 void tile_rows(const float* a, size_t lda, int rows, int k, const float* p0, const float* p1,
                          const float* bias, float* c, size_t ldc, int cols) {
  switch (rows) {
    case 12:
      return tile<12, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    case 8:
      return tile<8, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    case 7:
      return tile<7, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    case 6:
      return tile<6, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    case 5:
      return tile<5, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    case 4:
      return tile<4, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    case 3:
      return tile<3, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    case 2:
      return tile<2, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    case 1:
      return tile<1, kTwo>(a, lda, k, p0, p1, bias, c, ldc, cols);
    default:
      return;
  }
}

}  // namespace

void tile_avx512(const float* a, size_t lda, int rows, int k, const float* p0, const float* p1,
                 const float* bias, float* c, size_t ldc, int cols) {
  if (p1 && cols > 16)
    tile_rows<true>(a, lda, rows, k, p0, p1, bias, c, ldc, cols);
  else
    tile_rows<false>(a, lda, rows, k, p0, nullptr, bias, c, ldc, cols);
}

}  // namespace core::packed
