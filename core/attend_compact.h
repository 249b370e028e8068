// The decoder's per-step attention over compact key/value caches: f16 rows (half the bytes of f32) or int8
// rows with one f32 scale per head (symmetric, absmax / 127; a quarter of the bytes). A portable form
// (core/attend_compact.cc) and one written with AVX-512 intrinsics for heads of 32, 64 or 128 floats
// (core/attend_avx512.cc, the f32 kernel reading compact rows), chosen as attend_one's are.
#pragma once

#include <cstddef>
#include <cstdint>

namespace core {

// Rows of d int8 values [rows, d] with one scale per head [rows, n_heads]: value i of row r is
// values[r * d + i] * scales[r * n_heads + i / head_size].
struct Int8Rows {
  const int8_t* values = nullptr;
  const float* scales = nullptr;
};

// Rows of d IEEE halves [rows, d].
struct HalfRows {
  const uint16_t* values = nullptr;
};

// x [d] into values [d] and scales [n_heads]: per head scale = absmax / 127 (0 for a head of zeros) and
// values rounded to nearest even, so |x_i - values_i * scale| <= scale / 2.
void quantize_row_int8(const float* x, int d, int n_heads, int8_t* values, float* scales);
// x [d] into halves, rounded to nearest even (F16C when the CPU has it).
void round_row_half(const float* x, int d, uint16_t* values);

// As attend_one (core/attend_kernels.h) over compact keys and values: query q [d] against `len` rows (row
// j is row entries[j], or row j when entries is null), ctx [d]. scores: attend_one_scratch(len, n_heads)
// floats. Run the AVX-512 form when attend_one_avx512_supports the head size.
void attend_one_int8(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                     int n_heads, float* scores, float* ctx);
void attend_one_half(const float* q, HalfRows k, HalfRows v, const int32_t* entries, int len, int d,
                     int n_heads, float* scores, float* ctx);

// The AVX-512 forms, for the head sizes attend_one_avx512_supports; scores: attend_one_avx512_scratch(len).
void attend_one_int8_avx512(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                            int n_heads, float* scores, float* ctx);
void attend_one_half_avx512(const float* q, HalfRows k, HalfRows v, const int32_t* entries, int len, int d,
                            int n_heads, float* scores, float* ctx);

}  // namespace core
