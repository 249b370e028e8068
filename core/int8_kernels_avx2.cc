// AVX2 tile: up to 4 rows x 16 columns (one panel), 8 int32 accumulators in registers. vpmaddubsw takes
// |x| (u8 <= 127) times the weights given x's signs (vpsignb): each int16 pair sum is at most
// 2 x 127 x 127 = 32258, so it never saturates and the result is exact.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "core/int8_kernels.h"

namespace core::int8 {

namespace {

#define NMT_AVX2 __attribute__((target("avx2")))

template <int R>
NMT_AVX2 void tile(const int8_t* a, size_t lda, int groups, const int8_t* p0, int32_t* acc,
                   size_t acc_stride) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i c0[R], c1[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm256_setzero_si256();
  for (int g = 0; g < groups; ++g) {
    // Columns 0-7 and 8-15 of the group, 4 k values each.
    const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(p0 + 64 * static_cast<size_t>(g)));
    const __m256i b1 =
        _mm256_load_si256(reinterpret_cast<const __m256i*>(p0 + 64 * static_cast<size_t>(g) + 32));
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      int32_t four;
      std::memcpy(&four, a + r * lda + 4 * static_cast<size_t>(g), sizeof four);
      const __m256i x = _mm256_set1_epi32(four);
      const __m256i magnitude = _mm256_abs_epi8(x);
      const __m256i pairs0 = _mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(b0, x));
      const __m256i pairs1 = _mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(b1, x));
      c0[r] = _mm256_add_epi32(c0[r], _mm256_madd_epi16(pairs0, ones));
      c1[r] = _mm256_add_epi32(c1[r], _mm256_madd_epi16(pairs1, ones));
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + r * acc_stride), c0[r]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + r * acc_stride + 8), c1[r]);
  }
}

}  // namespace

void tile_avx2(const int8_t* a, size_t lda, int rows, int groups, const int8_t* p0, int32_t* acc,
               size_t acc_stride) {
  switch (rows) {
    case 1:
      return tile<1>(a, lda, groups, p0, acc, acc_stride);
    case 2:
      return tile<2>(a, lda, groups, p0, acc, acc_stride);
    case 3:
      return tile<3>(a, lda, groups, p0, acc, acc_stride);
    default:
      return tile<4>(a, lda, groups, p0, acc, acc_stride);
  }
}

}  // namespace core::int8
