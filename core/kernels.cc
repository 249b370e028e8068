#include "core/kernels.h"

#include <cmath>
#include <limits>

#include "core/fast_exp.h"
#include "core/simd.h"

namespace core {

NMT_SIMD_CLONES
void activate(float* x, size_t n, Activation act) {
  switch (act) {
    case Activation::kRelu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
      break;
    case Activation::kGelu:  // exact (erf) form, as PyTorch's default gelu
      for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
      break;
    case Activation::kSwish:
      for (size_t i = 0; i < n; ++i) x[i] = swish(x[i]);
      break;
  }
}

NMT_SIMD_CLONES
void layer_norm(const float* x, int rows, int d, const float* gamma, const float* beta, float eps, float* y) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * d;
    float* yr = y + static_cast<size_t>(r) * d;
    float mean = 0.0f;
#pragma omp simd reduction(+ : mean)
    for (int i = 0; i < d; ++i) mean += xr[i];
    mean /= static_cast<float>(d);
    float var = 0.0f;
#pragma omp simd reduction(+ : var)
    for (int i = 0; i < d; ++i) {
      const float c = xr[i] - mean;
      var += c * c;
    }
    var /= static_cast<float>(d);
    const float inv = 1.0f / std::sqrt(var + eps);
    for (int i = 0; i < d; ++i) yr[i] = (xr[i] - mean) * inv * gamma[i] + beta[i];
  }
}

NMT_SIMD_CLONES
void add_in_place(float* x, const float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] += y[i];
}

NMT_SIMD_CLONES
void softmax(float* x, int n) {
  float max = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; ++i) max = x[i] > max ? x[i] : max;
  if (max == -std::numeric_limits<float>::infinity()) {  // fully masked row: attend to nothing
    for (int i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  for (int i = 0; i < n; ++i) x[i] = exp_nonpositive_or_zero(x[i] - max);  // vectorised
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += x[i];  // in order: a row's result must not depend on vector width
  const float inv = 1.0f / sum;
  for (int i = 0; i < n; ++i) x[i] *= inv;
}

void log_softmax(float* x, int n) {
  float max = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; ++i) max = x[i] > max ? x[i] : max;
  if (max == -std::numeric_limits<float>::infinity()) return;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i] - max));
  const float shift = max + static_cast<float>(std::log(sum));
  for (int i = 0; i < n; ++i) x[i] -= shift;
}

}  // namespace core
