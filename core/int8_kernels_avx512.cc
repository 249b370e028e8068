// AVX-512 VNNI tile: up to 12 rows x 32 columns (two panels), 24 int32 accumulators in registers.
#include <immintrin.h>

// GCC 12's _mm512_slli_epi32 passes an undefined vector that -Wuninitialized reports once inlined here:
// a false positive (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <cstdint>
#include <cstring>
#include <utility>

#include "core/int8_kernels.h"

namespace core::int8 {

namespace {

#define NMT_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

template <int R, bool kTwo>
NMT_VNNI void tile(const uint8_t* a, size_t lda, int groups, const int8_t* p0, const int8_t* p1,
                   const int32_t* sums, int32_t* acc, size_t acc_stride) {
  __m512i c0[R], c1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm512_setzero_si512();
  for (int g = 0; g < groups; ++g) {
    const __m512i b0 = _mm512_load_si512(p0 + 64 * static_cast<size_t>(g));
    const __m512i b1 = kTwo ? _mm512_load_si512(p1 + 64 * static_cast<size_t>(g)) : b0;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      int32_t four;  // the row's 4 activations of this group, one lane's worth
      std::memcpy(&four, a + r * lda + 4 * static_cast<size_t>(g), sizeof four);
      const __m512i x = _mm512_set1_epi32(four);
      c0[r] = _mm512_dpbusd_epi32(c0[r], x, b0);
      if (kTwo) c1[r] = _mm512_dpbusd_epi32(c1[r], x, b1);
    }
  }
  // The +128 shift added 128 x each column's sum of weights: take it off.
  const __m512i shift0 = _mm512_slli_epi32(_mm512_loadu_si512(sums), 7);
  const __m512i shift1 = kTwo ? _mm512_slli_epi32(_mm512_loadu_si512(sums + 16), 7) : shift0;
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_si512(acc + r * acc_stride, _mm512_sub_epi32(c0[r], shift0));
    if (kTwo) _mm512_storeu_si512(acc + r * acc_stride + 16, _mm512_sub_epi32(c1[r], shift1));
  }
}

using Tile = void (*)(const uint8_t*, size_t, int, const int8_t*, const int8_t*, const int32_t*, int32_t*,
                      size_t);

template <bool kTwo, int... R>
constexpr Tile pick(int rows, std::integer_sequence<int, R...>) {
  Tile t = nullptr;
  ((rows == R + 1 ? (t = &tile<R + 1, kTwo>, 0) : 0), ...);
  return t;
}

}  // namespace

void tile_avx512_vnni(const uint8_t* a, size_t lda, int rows, int groups, const int8_t* p0, const int8_t* p1,
                      const int32_t* sums, int32_t* acc, size_t acc_stride) {
  const auto all = std::make_integer_sequence<int, kAvx512Rows>{};
  const Tile t = p1 ? pick<true>(rows, all) : pick<false>(rows, all);
  t(a, lda, groups, p0, p1, sums, acc, acc_stride);
}

}  // namespace core::int8
