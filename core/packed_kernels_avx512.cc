// AVX-512F tile: up to 12 rows x 32 columns (two panels), 24 accumulators in registers; panels of f32 or
// of f16 (widened as they are loaded: vcvtph2ps is exact, so both give the same bits for the same values).
#include <immintrin.h>

// GCC 12's _mm512_cvtph_ps passes an undefined vector that -Wmaybe-uninitialized reports once inlined
// here: a false positive (GCC bug 105593).
#if !defined(__clang__)  // clang has no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cstdint>

#include "core/packed_kernels.h"

namespace core::packed {

namespace {

#define NMT_AVX512 __attribute__((target("avx512f")))

NMT_AVX512 inline __mmask16 mask_of(int cols) {
  return cols >= 16 ? static_cast<__mmask16>(0xFFFF)
                    : static_cast<__mmask16>((1u << (cols > 0 ? cols : 0)) - 1);
}

// 16 weights of a panel row.
NMT_AVX512 inline __m512 load_panel_row(const float* p) { return _mm512_load_ps(p); }
NMT_AVX512 inline __m512 load_panel_row(const uint16_t* p) {
  return _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
}

// kInterleaved: a is this tile's rows interleaved, [k][R] (a[i * R + r]); else rows of lda floats.
// kPrefetch: also pulls prefetch.lines lines into L2, evenly over the k loop (16.16 fixed point).
template <int R, bool kTwo, bool kInterleaved, bool kPrefetch, typename Panel>
NMT_AVX512 void tile(const float* a, size_t lda, int k, const Panel* p0, const Panel* p1, const float* bias,
                     float* c, size_t ldc, int cols, Prefetch prefetch) {
  const char* pf_line = reinterpret_cast<const char*>(prefetch.from);
  const uint32_t pf_step =
      kPrefetch ? static_cast<uint32_t>(((static_cast<uint64_t>(prefetch.lines) << 16) + k - 1) / k) : 0;
  uint32_t pf_due = 0;
  __m512 acc0[R], acc1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
  for (int i = 0; i < k; ++i) {
    const __m512 w0 = load_panel_row(p0 + static_cast<size_t>(i) * 16);
    const __m512 w1 = kTwo ? load_panel_row(p1 + static_cast<size_t>(i) * 16) : w0;
    if (kPrefetch) {
      for (pf_due += pf_step; pf_due >= 65536; pf_due -= 65536, pf_line += 64)
        _mm_prefetch(pf_line, _MM_HINT_T1);
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(kInterleaved ? a[static_cast<size_t>(i) * R + r] : a[r * lda + i]);
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

template <bool kTwo, bool kInterleaved, bool kPrefetch, typename Panel>
NMT_AVX512 void tile_rows(const float* a, size_t lda, int rows, int k, const Panel* p0, const Panel* p1,
                          const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch) {
  switch (rows) {
    case 12:
      return tile<12, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 11:
      return tile<11, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 10:
      return tile<10, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 9:
      return tile<9, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 8:
      return tile<8, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 7:
      return tile<7, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 6:
      return tile<6, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 5:
      return tile<5, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 4:
      return tile<4, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 3:
      return tile<3, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 2:
      return tile<2, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    case 1:
      return tile<1, kTwo, kInterleaved, kPrefetch, Panel>(a, lda, k, p0, p1, bias, c, ldc, cols, prefetch);
    default:
      return;
  }
}

template <bool kInterleaved, typename Panel>
void tile_any(const float* a, size_t lda, int rows, int k, const Panel* p0, const Panel* p1,
              const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch) {
  const bool two = p1 && cols > 16;
  if (!two) p1 = nullptr;
  if (two && prefetch.lines > 0)
    tile_rows<true, kInterleaved, true, Panel>(a, lda, rows, k, p0, p1, bias, c, ldc, cols, prefetch);
  else if (two)
    tile_rows<true, kInterleaved, false, Panel>(a, lda, rows, k, p0, p1, bias, c, ldc, cols, prefetch);
  else if (prefetch.lines > 0)
    tile_rows<false, kInterleaved, true, Panel>(a, lda, rows, k, p0, p1, bias, c, ldc, cols, prefetch);
  else
    tile_rows<false, kInterleaved, false, Panel>(a, lda, rows, k, p0, p1, bias, c, ldc, cols, prefetch);
}

}  // namespace

void tile_avx512(const float* a, size_t lda, int rows, int k, const float* p0, const float* p1,
                 const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch) {
  tile_any<false>(a, lda, rows, k, p0, p1, bias, c, ldc, cols, prefetch);
}

void tile_avx512(const float* a, size_t lda, int rows, int k, const uint16_t* p0, const uint16_t* p1,
                 const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch) {
  tile_any<false>(a, lda, rows, k, p0, p1, bias, c, ldc, cols, prefetch);
}

void tile_avx512_interleaved(const float* a, int rows, int k, const float* p0, const float* p1,
                             const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch) {
  tile_any<true>(a, 0, rows, k, p0, p1, bias, c, ldc, cols, prefetch);
}

void tile_avx512_interleaved(const float* a, int rows, int k, const uint16_t* p0, const uint16_t* p1,
                             const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch) {
  tile_any<true>(a, 0, rows, k, p0, p1, bias, c, ldc, cols, prefetch);
}

}  // namespace core::packed
