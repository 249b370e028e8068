// The int8 cache's row quantizer and the portable form of its attention (core/attend_int8_avx512.cc is
// the AVX-512 one), and the choice between the forms.
#include "core/attend_int8.h"

#include <cmath>
#include <cstring>

#include "core/attend_kernels.h"
#include "core/kernels.h"
#include "core/simd.h"

namespace core {

void quantize_row_int8(const float* x, int d, int n_heads, int8_t* values, float* scales) {
  const int dh = d / n_heads;
  for (int h = 0; h < n_heads; ++h) {
    const float* xh = x + h * dh;
    float absmax = 0.0f;
    for (int i = 0; i < dh; ++i) absmax = std::fmax(absmax, std::fabs(xh[i]));
    scales[h] = absmax / 127.0f;
    const float inv = absmax > 0.0f ? 127.0f / absmax : 0.0f;
    for (int i = 0; i < dh; ++i) {
      const float r = std::nearbyint(xh[i] * inv);
      values[h * dh + i] = static_cast<int8_t>(std::fmin(127.0f, std::fmax(-127.0f, r)));
    }
  }
}

namespace {

NMT_SIMD_CLONES
void attend_one_int8_portable(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                              int n_heads, float* scores, float* ctx) {
  const int dh = d / n_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  for (int h = 0; h < n_heads; ++h) {
    const float* qh = q + h * dh;
    float* s = scores + static_cast<size_t>(h) * len;
    for (int j = 0; j < len; ++j) {  // s[j] = (q_h . k_j,h) * scale
      const size_t row = static_cast<size_t>(entries ? entries[j] : j);
      const int8_t* kj = k.values + row * d + h * dh;
      float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
      for (int i = 0; i < dh; ++i) dot += qh[i] * static_cast<float>(kj[i]);
      s[j] = dot * k.scales[row * n_heads + h] * scale;
    }
    softmax(s, len);
    float* out = ctx + h * dh;
    std::memset(out, 0, sizeof(float) * dh);
    for (int j = 0; j < len; ++j) {  // ctx_h += p_j * v_j,h
      const size_t row = static_cast<size_t>(entries ? entries[j] : j);
      const int8_t* vj = v.values + row * d + h * dh;
      const float p = s[j] * v.scales[row * n_heads + h];
#pragma omp simd
      for (int i = 0; i < dh; ++i) out[i] += p * static_cast<float>(vj[i]);
    }
  }
}

}  // namespace

void attend_one_int8(const float* q, Int8Rows k, Int8Rows v, const int32_t* entries, int len, int d,
                     int n_heads, float* scores, float* ctx) {
  if (d % n_heads == 0 && attend_one_avx512_supports(d / n_heads)) {
    attend_one_int8_avx512(q, k, v, entries, len, d, n_heads, scores, ctx);
  } else {
    attend_one_int8_portable(q, k, v, entries, len, d, n_heads, scores, ctx);
  }
}

}  // namespace core
