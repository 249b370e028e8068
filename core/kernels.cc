#include "core/kernels.h"

#include <cmath>
#include <limits>

#include "core/cpu.h"
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

namespace {

// LayerNorm in the order and roundings of marian-decoder's CPU build (GCC, AVX-512): each sum over 16 lanes,
// folded to 8 (plus an 8-wide tail), 4, 2 and 1, then the last values one by one; squares accumulated in
// fused multiply-adds; mean and variance multiplied by 1/d; y = fma(x - mean, gamma / sigma, beta). Int8
// students quantize these outputs, so Marian's bits keep their inputs on Marian's side of each rounding
// step; a fixed order also gives the same bits on every CPU. kSquares: sum (x - mean)^2, else x.
template <bool kSquares>
NMT_INLINE float marian_order_sum(const float* x, int d, float mean) {
  const auto add = [mean](float acc, float v) {
    if constexpr (kSquares) {
      return std::fma(v - mean, v - mean, acc);
    } else {
      return acc + v;
    }
  };
  float lanes[16] = {};
  int i = 0;
  for (; i + 16 <= d; i += 16)
    for (int l = 0; l < 16; ++l) lanes[l] = add(lanes[l], x[i + l]);
  float half[8];
  for (int l = 0; l < 8; ++l) half[l] = lanes[l + 8] + lanes[l];
  if (d - i >= 8) {
    for (int l = 0; l < 8; ++l) half[l] = add(half[l], x[i + l]);
    i += 8;
  }
  float quarter[4];
  for (int l = 0; l < 4; ++l) quarter[l] = half[l + 4] + half[l];
  float sum = (quarter[0] + quarter[2]) + (quarter[1] + quarter[3]);
  for (; i < d; ++i) sum = add(sum, x[i]);
  return sum;
}

NMT_INLINE void layer_norm_rows(const float* x, int rows, int d, const float* gamma, const float* beta,
                                float eps, float* y) {
  const float inv_d = 1.0f / static_cast<float>(d);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * d;
    float* yr = y + static_cast<size_t>(r) * d;
    const float mean = marian_order_sum<false>(xr, d, 0.0f) * inv_d;
    const float inv_sigma = 1.0f / std::sqrt(std::fma(marian_order_sum<true>(xr, d, mean), inv_d, eps));
    for (int i = 0; i < d; ++i) yr[i] = std::fma(xr[i] - mean, gamma[i] * inv_sigma, beta[i]);
  }
}

// The FMA copy compiles std::fma to instructions (wider vectors buy nothing here: rows are short); the plain
// one calls libm's: the same bits, more slowly, for CPUs without FMA.
__attribute__((target("fma"))) void layer_norm_fma(const float* x, int rows, int d, const float* gamma,
                                                   const float* beta, float eps, float* y) {
  layer_norm_rows(x, rows, d, gamma, beta, eps, y);
}

void layer_norm_plain(const float* x, int rows, int d, const float* gamma, const float* beta, float eps,
                      float* y) {
  layer_norm_rows(x, rows, d, gamma, beta, eps, y);
}

}  // namespace

void layer_norm(const float* x, int rows, int d, const float* gamma, const float* beta, float eps, float* y) {
  (fma_copies() ? layer_norm_fma : layer_norm_plain)(x, rows, d, gamma, beta, eps, y);
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
