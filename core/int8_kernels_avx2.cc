// AVX2 tile: vpmaddwd on int16 operands, which is exact for any int8 values (an int32 lane sums two
// products of at most 128 x 128), so the loop is a broadcast, vpmaddwd and vpaddd only. vpmaddubsw would
// need |x| and x's signs applied to the weights per row (vpsignb) to stay exact, three more instructions
// per row and group. The activations arrive widened once per product; each weight is widened (vpmovsxbw)
// once per tile and used for all its rows.
//
// A panel's group holds column j's k0..k3 in one 32-bit lane, so a widened 16-byte quarter is 4 columns x
// (k0 k1 | k2 k3): a row's 4 activations are broadcast as one 64-bit lane, and each column's sum stays
// split over two lanes until the tile ends.
#include <immintrin.h>

#include <cstdint>

#include "core/int8_kernels.h"

namespace core::int8 {

namespace {

#define NMT_AVX2 __attribute__((target("avx2")))

// R rows x half a panel (8 columns: 2 quarters of 4) in 2R accumulators, plus 2 weights, the broadcast
// and a product: 16 registers at R = 6.
constexpr int kHalfRows = 6;

// ahead: null, or a panel to fetch into L2, its line g (a panel's group is one 64-byte line) at group g.
// y = float(acc) * (row scale x column scales) + bias: a multiply, then an add, as int8_linear's other
// kernels do it. The empty asm keeps GCC from fusing them into one FMA (where the target has one), whose
// single rounding would give other bits. kFull: all 8 columns valid, else those of mask (vmaskmovps
// stores are slow on AMD: only a panel's last columns take them).
template <bool kFull>
NMT_AVX2 inline void store_dequantized(__m256i acc, float row_scale, const float* col_scales,
                                       const float* bias, float* y, __m256i mask) {
  const __m256 scale = _mm256_mul_ps(_mm256_set1_ps(row_scale), _mm256_loadu_ps(col_scales));
  __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), scale);
  if (bias) {
    __asm__("" : "+v"(v));
    v = _mm256_add_ps(v, kFull ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(bias, mask));
  }
  if (kFull)
    _mm256_storeu_ps(y, v);
  else
    _mm256_maskstore_ps(y, mask, v);
}

// out: the half's first row and column, out.cols of its 8 columns valid (at least 1).
template <int R>
NMT_AVX2 void half_tile(const int16_t* a, size_t lda, int groups, const int8_t* half, const int8_t* ahead,
                        const TileOut& out) {
  __m256i c0[R], c1[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm256_setzero_si256();
  const int8_t* p = half;
  for (int g = 0; g < groups; ++g, p += 64) {
    if (ahead) _mm_prefetch(reinterpret_cast<const char*>(ahead) + 64 * static_cast<size_t>(g), _MM_HINT_T1);
    const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      // In assembly: from intrinsics GCC hoists every row's broadcast and spills the accumulators.
      const int16_t* four = a + r * lda + 4 * static_cast<size_t>(g);  // the row's 4 activations
      __m256i x, product;
      __asm__(
          "vpbroadcastq %[four], %[x]\n\t"
          "vpmaddwd %[w0], %[x], %[product]\n\t"
          "vpaddd %[product], %[c0], %[c0]\n\t"
          "vpmaddwd %[w1], %[x], %[product]\n\t"
          "vpaddd %[product], %[c1], %[c1]"
          : [c0] "+v"(c0[r]), [c1] "+v"(c1[r]), [x] "=&v"(x), [product] "=&v"(product)
          : [four] "m"(*reinterpret_cast<const int64_t*>(four)), [w0] "v"(w0), [w1] "v"(w1));
    }
  }
  // hadd adds each column's two lanes, within 128-bit halves: [c0 c1 c4 c5 | c2 c3 c6 c7], then in order.
  const __m256i mask =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(out.cols), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const __m256i sums = _mm256_permute4x64_epi64(_mm256_hadd_epi32(c0[r], c1[r]), 0xd8);
    if (out.y && out.cols >= 8)
      store_dequantized<true>(sums, out.row_scales[r], out.col_scales, out.bias, out.y + r * out.ldy, mask);
    else if (out.y)
      store_dequantized<false>(sums, out.row_scales[r], out.col_scales, out.bias, out.y + r * out.ldy, mask);
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.acc + r * out.acc_stride), sums);
  }
}

// The last rows % kHalfRows rows, as one tile of their own.
template <int R>
void tail(int rows, const int16_t* a, size_t lda, int groups, const int8_t* half, const int8_t* ahead,
          const TileOut& out) {
  if constexpr (R >= 1) {
    if (rows == R) return half_tile<R>(a, lda, groups, half, ahead, out);
    tail<R - 1>(rows, a, lda, groups, half, ahead, out);
  }
}

// out moved on by `rows` rows and `columns` columns.
TileOut shifted(const TileOut& out, int rows, int columns) {
  TileOut o = out;
  if (o.y) {
    o.y += rows * o.ldy + columns;
    o.row_scales += rows;
    o.col_scales += columns;
    if (o.bias) o.bias += columns;
  } else {
    o.acc += rows * o.acc_stride + columns;
  }
  o.cols = out.cols - columns;
  return o;
}

}  // namespace

void tile_avx2(const int16_t* a, size_t lda, int rows, int groups, const int8_t* p0, const TileOut& out) {
  // Both halves over the same rows: the panel (groups x 64 bytes) and the rows stay in L1 in between. The
  // first pass fetches the panel after next into L2: the hardware prefetcher stops at each 4 KB page, and
  // left to it, panels streamed from memory (the 58k-column output projection) come at half the speed.
  const int8_t* ahead = p0 + 2 * 64 * static_cast<size_t>(groups);
  for (int h = 0; h < 2 && 8 * h < out.cols; ++h) {
    const int8_t* half = p0 + 32 * h;
    int r = 0;
    for (; r + kHalfRows <= rows; r += kHalfRows, ahead = nullptr)
      half_tile<kHalfRows>(a + r * lda, lda, groups, half, ahead, shifted(out, r, 8 * h));
    if (r < rows)
      tail<kHalfRows - 1>(rows - r, a + r * lda, lda, groups, half, ahead, shifted(out, r, 8 * h));
    ahead = nullptr;
  }
}

}  // namespace core::int8
