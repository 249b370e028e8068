// One attention layer's cached keys or values for the decoder: rows of d floats, or, for int8
// checkpoints, compact rows (core/attend_compact.h): d halves, or d int8 values with one f32 scale per
// head. The type follows the checkpoint, chosen by attention_cache_type alone.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/attend_compact.h"
#include "core/buffer_pool.h"
#include "models/transformer_weights.h"

namespace models {

enum class CacheType { kF32, kF16, kInt8 };

// The decoder caches a model keeps: int8 when its linear layers are int8 (a quarter of f32's bytes, within
// the noise of f16 caches in BLEU on the bundled model: bench/latest/experiments.md), else f32.
CacheType attention_cache_type(const TransformerWeights& weights);

class CacheRows {
 public:
  CacheRows() = default;
  // Uninitialised (and pooled: core/buffer_pool.h) room for `rows` rows of d values.
  CacheRows(size_t rows, int d, int n_heads, CacheType type);

  CacheType type() const { return type_; }
  // Row `row` = x [d], rounded or quantized for compact rows.
  void store(size_t row, const float* x);
  // Rows from `first` on, as their type: floats (kF32), halves (kF16), int8 and scales (kInt8).
  const float* floats(size_t first) const { return values_.data() + first * d_; }
  float* floats(size_t first) { return values_.data() + first * d_; }
  core::HalfRows half_rows(size_t first) const;
  core::Int8Rows int8_rows(size_t first) const;

 private:
  int d_ = 0, n_heads_ = 0;
  CacheType type_ = CacheType::kF32;
  core::PooledBuffer values_;  // [rows, d] floats, or [rows, d] halves or int8 in the buffer's bytes
  core::PooledBuffer scales_;  // [rows, n_heads] for int8 rows
};

// core::attend_one, attend_one_half or attend_one_int8 of query q [d] against rows `first` + (entries[j]
// or j) of k and v, j < len; ctx [d].
void attend_cached(const float* q, const CacheRows& k, const CacheRows& v, size_t first,
                   const int32_t* entries, int len, int d, int n_heads, float* scores, float* ctx);

}  // namespace models
