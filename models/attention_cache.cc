#include "models/attention_cache.h"

#include <cstring>

#include "core/attend_kernels.h"

namespace models {

CacheType attention_cache_type(const TransformerWeights& weights) {
  const bool int8 = !weights.decoder.empty() && weights.decoder.front().self_attn.k.int8 != nullptr;
  return int8 ? CacheType::kInt8 : CacheType::kF32;
}

CacheRows::CacheRows(size_t rows, int d, int n_heads, CacheType type)
    : d_(d), n_heads_(n_heads), int8_(type == CacheType::kInt8) {
  if (int8_) {
    values_ = core::PooledBuffer((rows * d + sizeof(float) - 1) / sizeof(float));
    scales_ = core::PooledBuffer(rows * n_heads);
  } else {
    values_ = core::PooledBuffer(rows * d);
  }
}

void CacheRows::store(size_t row, const float* x) {
  if (int8_) {
    core::quantize_row_int8(x, d_, n_heads_, reinterpret_cast<int8_t*>(values_.data()) + row * d_,
                            scales_.data() + row * n_heads_);
  } else {
    std::memcpy(values_.data() + row * d_, x, sizeof(float) * d_);
  }
}

core::Int8Rows CacheRows::int8_rows(size_t first) const {
  return {reinterpret_cast<const int8_t*>(values_.data()) + first * d_, scales_.data() + first * n_heads_};
}

void attend_cached(const float* q, const CacheRows& k, const CacheRows& v, size_t first,
                   const int32_t* entries, int len, int d, int n_heads, float* scores, float* ctx) {
  if (k.int8()) {
    core::attend_one_int8(q, k.int8_rows(first), v.int8_rows(first), entries, len, d, n_heads, scores, ctx);
  } else {
    core::attend_one(q, k.floats(first), v.floats(first), entries, len, d, n_heads, scores, ctx);
  }
}

}  // namespace models
