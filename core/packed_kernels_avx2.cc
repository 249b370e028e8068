// AVX2+FMA tile: up to 6 rows x 16 columns (one panel), 12 accumulators in registers; panels of f32 or
// of f16 (widened by F16C as they are loaded, exactly).
#include <immintrin.h>

#include <cstdint>

#include "core/packed_kernels.h"

namespace core::packed {

namespace {

#define NMT_AVX2 __attribute__((target("avx2,fma,f16c")))

// Lane mask for the first n (0..8) of 8 floats.
NMT_AVX2 inline __m256i mask_of(int n) {
  n = n < 0 ? 0 : (n > 8 ? 8 : n);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lanes);
}

// 8 weights of a panel row.
NMT_AVX2 inline __m256 load_panel_half_row(const float* p) { return _mm256_load_ps(p); }
NMT_AVX2 inline __m256 load_panel_half_row(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(p)));
}

// kPrefetch: also pulls prefetch.lines lines into L2, evenly over the k loop (as the AVX-512 tile does).
template <int R, bool kPrefetch, typename Panel>
NMT_AVX2 void tile(const float* a, size_t lda, int k, const Panel* p0, const float* bias, float* c,
                   size_t ldc, int cols, Prefetch prefetch) {
  const char* pf_line = reinterpret_cast<const char*>(prefetch.from);
  const uint32_t pf_step =
      kPrefetch ? static_cast<uint32_t>(((static_cast<uint64_t>(prefetch.lines) << 16) + k - 1) / k) : 0;
  uint32_t pf_due = 0;
  __m256 lo[R], hi[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
  for (int i = 0; i < k; ++i) {
    const __m256 w0 = load_panel_half_row(p0 + static_cast<size_t>(i) * 16);
    const __m256 w1 = load_panel_half_row(p0 + static_cast<size_t>(i) * 16 + 8);
    if (kPrefetch) {
      for (pf_due += pf_step; pf_due >= 65536; pf_due -= 65536, pf_line += 64)
        _mm_prefetch(pf_line, _MM_HINT_T1);
    }
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

template <bool kPrefetch, typename Panel>
NMT_AVX2 void tile_rows(const float* a, size_t lda, int rows, int k, const Panel* p0, const float* bias,
                        float* c, size_t ldc, int cols, Prefetch prefetch) {
  switch (rows) {
    case 6:
      return tile<6, kPrefetch, Panel>(a, lda, k, p0, bias, c, ldc, cols, prefetch);
    case 5:
      return tile<5, kPrefetch, Panel>(a, lda, k, p0, bias, c, ldc, cols, prefetch);
    case 4:
      return tile<4, kPrefetch, Panel>(a, lda, k, p0, bias, c, ldc, cols, prefetch);
    case 3:
      return tile<3, kPrefetch, Panel>(a, lda, k, p0, bias, c, ldc, cols, prefetch);
    case 2:
      return tile<2, kPrefetch, Panel>(a, lda, k, p0, bias, c, ldc, cols, prefetch);
    case 1:
      return tile<1, kPrefetch, Panel>(a, lda, k, p0, bias, c, ldc, cols, prefetch);
    default:
      return;
  }
}

template <typename Panel>
void tile_any(const float* a, size_t lda, int rows, int k, const Panel* p0, const float* bias, float* c,
              size_t ldc, int cols, Prefetch prefetch) {
  if (prefetch.lines > 0)
    tile_rows<true>(a, lda, rows, k, p0, bias, c, ldc, cols, prefetch);
  else
    tile_rows<false>(a, lda, rows, k, p0, bias, c, ldc, cols, prefetch);
}

}  // namespace

void tile_avx2(const float* a, size_t lda, int rows, int k, const float* p0, const float* bias, float* c,
               size_t ldc, int cols, Prefetch prefetch) {
  tile_any(a, lda, rows, k, p0, bias, c, ldc, cols, prefetch);
}

void tile_avx2(const float* a, size_t lda, int rows, int k, const uint16_t* p0, const float* bias, float* c,
               size_t ldc, int cols, Prefetch prefetch) {
  tile_any(a, lda, rows, k, p0, bias, c, ldc, cols, prefetch);
}

}  // namespace core::packed
