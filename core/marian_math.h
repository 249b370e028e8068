// exp and softmax as marian-decoder's CPU build computes them, for models that must round as Marian does
// (the Firefox students: models/model_config.h's AttentionRounding).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/fast_exp.h"

namespace core {

// Cephes' expf (core/fast_exp.h's constants) as Marian's vectorised code computes it: x clamped to
// +-88.376, n = floor(x log2 e + 1/2), r = x - n ln 2 in two parts, the polynomial, times 2^n built in the
// exponent bits, every multiply-add fused as the compiler fused them. Callers compiled without FMA get
// the same bits from std::fma, more slowly.
NMT_INLINE float marian_exp(float x) {
  using namespace fast_exp;
  x = std::max(std::min(x, 88.3762626647949f), -88.3762626647949f);
  const float n = std::floor(std::fma(x, kLog2e, 0.5f));
  const float r = std::fma(-n, kLn2Lo, std::fma(-n, kLn2Hi, x));
  float y = std::fma(r, kP0, kP1);
  y = std::fma(y, r, kP2);
  y = std::fma(y, r, kP3);
  y = std::fma(y, r, kP4);
  y = std::fma(y, r, kP5);
  y = std::fma(y, r * r, r) + 1.0f;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

// In place softmax over one row of n values as Marian's CPU Softmax: a row of a multiple of 8 (or else of
// 4) values is read as vectors of that many lanes, each lane sums its exp(x - max) (marian_exp), the lane
// sums add in lane order, and every value is divided by the total; other rows use libm's expf and one
// running sum.
void marian_softmax(float* x, int n);

}  // namespace core
