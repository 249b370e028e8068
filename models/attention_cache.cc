#include "models/attention_cache.h"

#include <cstring>

#include "core/attend_kernels.h"

namespace models {

CacheType attention_cache_type(const TransformerWeights& weights) {
  // intgemm's scheme (model_config.h) keeps f32 caches, as Marian does.
  const core::Int8Matrix* k = weights.decoder.empty() ? nullptr : weights.decoder.front().cross_attn.k.int8;
  const bool int8 = k != nullptr && k->input_scaling().kind == core::Int8InputScaling::Kind::kPerRow;
  return int8 ? CacheType::kInt8 : CacheType::kF32;
}

CacheRows::CacheRows(size_t rows, int d, int n_heads, CacheType type)
    : d_(d), n_heads_(n_heads), type_(type) {
  const size_t values = rows * d;
  switch (type) {
    case CacheType::kF32:
      values_ = core::PooledBuffer(values);
      break;
    case CacheType::kF16:
      values_ = core::PooledBuffer((values * sizeof(uint16_t) + sizeof(float) - 1) / sizeof(float));
      break;
    case CacheType::kInt8:
      values_ = core::PooledBuffer((values + sizeof(float) - 1) / sizeof(float));
      scales_ = core::PooledBuffer(rows * n_heads);
      break;
  }
}

void CacheRows::store(size_t row, const float* x) {
  switch (type_) {
    case CacheType::kF32:
      std::memcpy(values_.data() + row * d_, x, sizeof(float) * d_);
      break;
    case CacheType::kF16:
      core::round_row_half(x, d_, reinterpret_cast<uint16_t*>(values_.data()) + row * d_);
      break;
    case CacheType::kInt8:
      core::quantize_row_int8(x, d_, n_heads_, reinterpret_cast<int8_t*>(values_.data()) + row * d_,
                              scales_.data() + row * n_heads_);
      break;
  }
}

core::HalfRows CacheRows::half_rows(size_t first) const {
  return {reinterpret_cast<const uint16_t*>(values_.data()) + first * d_};
}

core::Int8Rows CacheRows::int8_rows(size_t first) const {
  return {reinterpret_cast<const int8_t*>(values_.data()) + first * d_, scales_.data() + first * n_heads_};
}

void attend_cached(const float* q, const CacheRows& k, const CacheRows& v, size_t first,
                   const int32_t* entries, int len, int d, int n_heads, float* scores, float* ctx) {
  switch (k.type()) {
    case CacheType::kF32:
      return core::attend_one(q, k.floats(first), v.floats(first), entries, len, d, n_heads, scores, ctx);
    case CacheType::kF16:
      return core::attend_one_half(q, k.half_rows(first), v.half_rows(first), entries, len, d, n_heads,
                                   scores, ctx);
    case CacheType::kInt8:
      return core::attend_one_int8(q, k.int8_rows(first), v.int8_rows(first), entries, len, d, n_heads,
                                   scores, ctx);
  }
}

}  // namespace models
