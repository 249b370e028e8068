// The int8 tiles behind int8_linear (core/int8_gemm.h): each stores rows x (16 or 32) exact int32 dot
// products into acc, a row of acc_stride per row. a: the tile's quantized rows, `groups` * 4 bytes each,
// lda apart; panels as Int8Matrix lays them out.
#pragma once

#include <cstddef>
#include <cstdint>

namespace core::int8 {

constexpr int kAvx512Rows = 12;  // rows per AVX-512 VNNI tile, two panels wide
constexpr int kAvx2Rows = 4;     // rows per AVX2 tile, one panel wide

// a: x + 128 as u8. sums: the two panels' column sums (subtracted x 128). p1 null: one panel.
void tile_avx512_vnni(const uint8_t* a, size_t lda, int rows, int groups, const int8_t* p0, const int8_t* p1,
                      const int32_t* sums, int32_t* acc, size_t acc_stride);
// a: x as s8.
void tile_avx2(const int8_t* a, size_t lda, int rows, int groups, const int8_t* p0, int32_t* acc,
               size_t acc_stride);

}  // namespace core::int8
