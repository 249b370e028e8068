// AVX-512 VNNI tile: up to 12 rows x 32 columns (two panels), 24 int32 accumulators in registers,
// dequantized there when the caller wants floats.
#include <immintrin.h>

// GCC 12's _mm512_slli_epi32 and _mm512_cvtepi32_ps pass an undefined vector that -Wuninitialized reports
// once inlined here: a false positive (GCC bug 105593).
#if !defined(__clang__)  // clang has no such warnings
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cstdint>
#include <cstring>
#include <utility>

#include "core/int8_kernels.h"

namespace core::int8 {

namespace {

#define NMT_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

// acc += u8 a x s8 b, 4 products per lane. In assembly: GCC 12 copies the accumulator around the
// intrinsic (its only form overwrites the sum), which spills half the tile's accumulators to the stack.
NMT_VNNI inline void dpbusd(__m512i& acc, __m512i a, __m512i b) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
}

// y = float(acc) * (row scale x column scales) + bias for the valid columns (mask): a multiply, then an add,
// as int8_linear's other kernels do it. The empty asm keeps GCC from fusing them into one FMA, whose single
// rounding would give other bits.
NMT_VNNI inline void store_dequantized(__m512i acc, float row_scale, const float* col_scales,
                                       const float* bias, float* y, __mmask16 mask) {
  const __m512 scale = _mm512_mul_ps(_mm512_set1_ps(row_scale), _mm512_maskz_loadu_ps(mask, col_scales));
  __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale);
  if (bias) {
    __asm__("" : "+v"(v));
    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, bias));
  }
  _mm512_mask_storeu_ps(y, mask, v);
}

template <int R, bool kTwo, bool kStream>
NMT_VNNI void tile(const uint8_t* a, size_t lda, int groups, const int8_t* p0, const int8_t* p1,
                   const int32_t* sums, const TileOut& out) {
  const ptrdiff_t ahead = 4 * (p1 - p0);  // the panels of the call after next
  __m512i c0[R], c1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm512_setzero_si512();
  for (int g = 0; g < groups; ++g) {
    const __m512i b0 = _mm512_load_si512(p0 + 64 * static_cast<size_t>(g));
    const __m512i b1 = kTwo ? _mm512_load_si512(p1 + 64 * static_cast<size_t>(g)) : b0;
    if (kTwo && kStream) {
      _mm_prefetch(reinterpret_cast<const char*>(p0 + ahead + 64 * static_cast<size_t>(g)), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char*>(p1 + ahead + 64 * static_cast<size_t>(g)), _MM_HINT_T1);
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      int32_t four;  // the row's 4 activations of this group, one lane's worth
      std::memcpy(&four, a + r * lda + 4 * static_cast<size_t>(g), sizeof four);
      const __m512i x = _mm512_set1_epi32(four);
      dpbusd(c0[r], x, b0);
      if (kTwo) dpbusd(c1[r], x, b1);
    }
  }
  // The +128 shift added 128 x each column's sum of weights: take it off.
  const __m512i shift0 = _mm512_slli_epi32(_mm512_loadu_si512(sums), 7);
  const __m512i shift1 = kTwo ? _mm512_slli_epi32(_mm512_loadu_si512(sums + 16), 7) : shift0;
  if (!out.y) {
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      _mm512_storeu_si512(out.acc + r * out.acc_stride, _mm512_sub_epi32(c0[r], shift0));
      if (kTwo) _mm512_storeu_si512(out.acc + r * out.acc_stride + 16, _mm512_sub_epi32(c1[r], shift1));
    }
    return;
  }
  const int cols1 = out.cols - 16;
  const __mmask16 mask0 = out.cols >= 16 ? 0xffff : static_cast<__mmask16>((1u << out.cols) - 1);
  const __mmask16 mask1 = cols1 >= 16 ? 0xffff : cols1 > 0 ? static_cast<__mmask16>((1u << cols1) - 1) : 0;
  const float* bias1 = out.bias ? out.bias + 16 : nullptr;
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    float* y = out.y + r * out.ldy;
    store_dequantized(_mm512_sub_epi32(c0[r], shift0), out.row_scales[r], out.col_scales, out.bias, y, mask0);
    if (kTwo)
      store_dequantized(_mm512_sub_epi32(c1[r], shift1), out.row_scales[r], out.col_scales + 16, bias1,
                        y + 16, mask1);
  }
}

using Tile = void (*)(const uint8_t*, size_t, int, const int8_t*, const int8_t*, const int32_t*,
                      const TileOut&);

template <bool kTwo, bool kStream, int... R>
constexpr Tile pick(int rows, std::integer_sequence<int, R...>) {
  Tile t = nullptr;
  ((rows == R + 1 ? (t = &tile<R + 1, kTwo, kStream>, 0) : 0), ...);
  return t;
}

}  // namespace

NMT_VNNI float quantize_row_u8_avx512(const float* x, int n, int padded, uint8_t* u) {
  __m512 amax = _mm512_setzero_ps();
  int i = 0;
  for (; i + 16 <= n; i += 16) amax = _mm512_max_ps(amax, _mm512_abs_ps(_mm512_loadu_ps(x + i)));
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
  amax = _mm512_max_ps(amax, _mm512_abs_ps(_mm512_maskz_loadu_ps(tail, x + i)));
  const float m = _mm512_reduce_max_ps(amax);
  if (m == 0.0f) {
    std::memset(u, 0x80, static_cast<size_t>(padded));
    return 1.0f;
  }
  quantize_row_by_u8_avx512(x, n, 127.0f / m, padded, u);
  return m / 127.0f;
}

// x * multiplier rounded to nearest even (the conversion's mode), clamped to [-127, 127]: the scalar
// quantizer's arithmetic, so the same q. Values past +-1024 are clamped before the conversion, which would
// turn them into INT_MIN.
NMT_VNNI void quantize_row_by_u8_avx512(const float* x, int n, float multiplier, int padded, uint8_t* u) {
  const __m512 inverse = _mm512_set1_ps(multiplier), limit = _mm512_set1_ps(1024.0f),
               minus_limit = _mm512_set1_ps(-1024.0f);
  const __m512i low = _mm512_set1_epi32(-127), high = _mm512_set1_epi32(127), shift = _mm512_set1_epi32(128);
  for (int i = 0; i < padded; i += 16) {
    const __mmask16 valid = i + 16 <= n ? 0xffff : i < n ? static_cast<__mmask16>((1u << (n - i)) - 1) : 0;
    const __m512 v = _mm512_min_ps(
        limit, _mm512_max_ps(minus_limit, _mm512_mul_ps(_mm512_maskz_loadu_ps(valid, x + i), inverse)));
    __m512i q = _mm512_min_epi32(high, _mm512_max_epi32(low, _mm512_cvtps_epi32(v)));
    q = _mm512_add_epi32(q, shift);
    const __mmask16 out = i + 16 <= padded ? 0xffff : static_cast<__mmask16>((1u << (padded - i)) - 1);
    _mm512_mask_cvtepi32_storeu_epi8(u + i, out, q);
  }
}

void tile_avx512_vnni(const uint8_t* a, size_t lda, int rows, int groups, const int8_t* p0, const int8_t* p1,
                      bool stream, const int32_t* sums, const TileOut& out) {
  const auto all = std::make_integer_sequence<int, kAvx512Rows>{};
  const Tile t = !p1      ? pick<false, false>(rows, all)
                 : stream ? pick<true, true>(rows, all)
                          : pick<true, false>(rows, all);
  t(a, lda, groups, p0, p1, sums, out);
}

}  // namespace core::int8
