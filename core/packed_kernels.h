// Register-tiled kernels behind packed_linear (core/packed_gemm.cc); one file per instruction set.
#pragma once

#include <cstddef>
#include <cstdint>

namespace core::packed {

// c[r][j] = (sum over i < k, in order, of a[r][i] * panel[i][j] as one fma chain) + bias[j]
// for r < rows and j < cols; panels hold 16 columns each, [k][16], as f32 or IEEE f16 (widened exactly:
// the same values give the same bits either way). bias may be null.

// AVX-512F: rows <= 12, two panels (p1 may be null when cols <= 16), cols <= 32. 12 rows keep 24
// accumulators in registers (of 32) and read each weight once per 12 rows.
constexpr int kAvx512Rows = 12;
// Cache lines to pull into L2 while a tile runs (the weights a later tile needs), spread over its k loop.
struct Prefetch {
  const void* from = nullptr;
  int lines = 0;  // 64-byte lines from `from` on; 0 = none
};

void tile_avx512(const float* a, size_t lda, int rows, int k, const float* p0, const float* p1,
                 const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch);
void tile_avx512(const float* a, size_t lda, int rows, int k, const uint16_t* p0, const uint16_t* p1,
                 const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch);
// The same with the tile's rows interleaved, a[i * rows + r]: one sequential stream of broadcasts
// instead of `rows` streams 4*lda bytes apart (see interleave_rows in packed_gemm.cc).
void tile_avx512_interleaved(const float* a, int rows, int k, const float* p0, const float* p1,
                             const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch);
void tile_avx512_interleaved(const float* a, int rows, int k, const uint16_t* p0, const uint16_t* p1,
                             const float* bias, float* c, size_t ldc, int cols, Prefetch prefetch);

// AVX2+FMA(+F16C): rows <= 6, one panel, cols <= 16; the same prefetch.
constexpr int kAvx2Rows = 6;
void tile_avx2(const float* a, size_t lda, int rows, int k, const float* p0, const float* bias, float* c,
               size_t ldc, int cols, Prefetch prefetch);
void tile_avx2(const float* a, size_t lda, int rows, int k, const uint16_t* p0, const float* bias, float* c,
               size_t ldc, int cols, Prefetch prefetch);

}  // namespace core::packed
