// The int8 tiles behind int8_linear (core/int8_gemm.h). a: the tile's quantized rows, `groups` * 4 bytes
// each, lda apart; panels as Int8Matrix lays them out.
#pragma once

#include <cstddef>
#include <cstdint>

namespace core::int8 {

constexpr int kAvx512Rows = 12;  // rows per AVX-512 VNNI tile, two panels wide
constexpr int kAvx2Rows = 12;    // rows per AVX2 call, one panel wide (tiles of 6 rows x 8 columns)

// Where a tile's exact int32 products go: raw into acc (a row of acc_stride per row), or, when y is set,
// dequantized in registers as y[r][j] = float(acc) * (row_scales[r] * col_scales[j]) + bias[j] (bias may be
// null) for j < cols, a row of ldy per row. Pointers are the tile's first row and column.
struct TileOut {
  int32_t* acc = nullptr;
  size_t acc_stride = 0;
  float* y = nullptr;
  size_t ldy = 0;
  const float* row_scales = nullptr;
  const float* col_scales = nullptr;
  const float* bias = nullptr;
  int cols = 0;
};

// a: x + 128 as u8. sums: the two panels' column sums (subtracted x 128). p1 null: one panel. stream: the
// panels come from memory (the first row tile over them), so the tile fetches the two panels of the call
// after next into L2 while it multiplies: the hardware prefetcher stops at each 4 KB page, and the 58k-column
// output projection does not stay in cache between steps. Over cached panels the fetches would only cost.
void tile_avx512_vnni(const uint8_t* a, size_t lda, int rows, int groups, const int8_t* p0, const int8_t* p1,
                      bool stream, const int32_t* sums, const TileOut& out);
// quantize_row (core/int8_gemm.h) of x[n] as the VNNI tile reads it: q + 128 as u8 into u[padded], zeros
// (128) from n to padded; the same scale and the same q, bit for bit.
float quantize_row_u8_avx512(const float* x, int n, int padded, uint8_t* u);
// quantize_row_by likewise: the same q as it gives, as u8 with the padding above.
void quantize_row_by_u8_avx512(const float* x, int n, float multiplier, int padded, uint8_t* u);

// a: x widened to int16 (exact products for any int8 x), lda values apart. out.cols: the panel's valid
// columns, for either output.
void tile_avx2(const int16_t* a, size_t lda, int rows, int groups, const int8_t* p0, const TileOut& out);

}  // namespace core::int8
