// The decoder's per-step attention for one query row: a portable form (core/attend_one.cc) and one written
// with AVX-512 intrinsics for heads of 32, 64 or 128 floats (core/attend_avx512.cc).
#pragma once

#include <cstddef>
#include <cstdint>

namespace core {

// One query row q [d] against `len` key/value rows, all heads, written to ctx [d]. Key/value row j is row
// entries[j] of k and v (stride d), or row j when entries is null (a cache of shared entries, or a plain
// one). scores: scratch of attend_one_scratch(len, n_heads) floats. Streams each key/value row once; runs
// the AVX-512 form when the CPU and the head size allow.
void attend_one(const float* q, const float* k, const float* v, const int32_t* entries, int len, int d,
                int n_heads, float* scores, float* ctx);
size_t attend_one_scratch(int len, int n_heads);

// Whether attend_one_avx512 handles this CPU and head size.
bool attend_one_avx512_supports(int head_size);

// One query row q [d] against `len` key/value rows, all heads, written to ctx [d]. Key/value row j is
// row entries[j] of k and v (stride d), or row j when entries is null. scores: scratch of
// attend_one_avx512_scratch(len) floats.
void attend_one_avx512(const float* q, const float* k, const float* v, const int32_t* entries, int len, int d,
                       int n_heads, float* scores, float* ctx);

// Scratch floats attend_one_avx512 needs for `len` keys: one head's scores, rounded up to whole vectors.
inline size_t attend_one_avx512_scratch(int len) { return (static_cast<size_t>(len) + 15) / 16 * 16; }

}  // namespace core
