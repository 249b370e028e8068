// exp in float, written so compilers vectorise the loops that call it: libm's expf is a call per element.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/simd.h"

namespace core {

// Cephes expf's constants, shared by the scalar form below and the 16-lane one in core/attend_avx512.cc.
namespace fast_exp {
constexpr uint32_t kMinus87Bits = 0xC2AE0000u;  // the clamp, as bits
constexpr float kRoundingMagic = 12582912.0f;   // 1.5 * 2^23: n = round(x / ln 2) lands in the low bits
constexpr uint32_t kRoundingMagicBits = 0x4B400000u;
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;  // ln 2 in two parts
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f,
                kP3 = 4.1665795894e-2f, kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;
}  // namespace fast_exp

// exp(x) for x <= 0 (or NaN): Cephes expf's range reduction and polynomial (about 1 ulp), without branches,
// calls or float comparisons. Below -87 (also -inf) it returns about 1e-38 instead of 0, which cannot move a
// sum that contains exp(0) = 1.
NMT_INLINE float exp_nonpositive(float x) {
  // Clamp to -87 on the bits: for x <= 0 a larger magnitude is a larger unsigned pattern (+0 is 0).
  using namespace fast_exp;
  uint32_t x_bits;
  std::memcpy(&x_bits, &x, sizeof x);
  x_bits = x_bits < kMinus87Bits ? x_bits : kMinus87Bits;
  std::memcpy(&x, &x_bits, sizeof x);
  // n = round(x / ln 2), read from the low mantissa bits after adding 1.5 * 2^23.
  const float shifted = x * kLog2e + kRoundingMagic;
  const float n = shifted - kRoundingMagic;
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;  // x - n ln 2
  float p = kP0;
  p = p * r + kP1;
  p = p * r + kP2;
  p = p * r + kP3;
  p = p * r + kP4;
  p = p * r + kP5;
  const float exp_r = p * r * r + r + 1.0f;
  // 2^n from its exponent field; n >= -126 thanks to the clamp.
  uint32_t shifted_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted);
  const uint32_t two_to_n_bits = (shifted_bits - kRoundingMagicBits + 127u) << 23;
  float two_to_n;
  std::memcpy(&two_to_n, &two_to_n_bits, sizeof two_to_n);
  return exp_r * two_to_n;
}

// The same for x - max in a softmax, where masked (-inf) entries must give exactly 0.
NMT_INLINE float exp_nonpositive_or_zero(float x) { return x < -87.0f ? 0.0f : exp_nonpositive(x); }

// x * sigmoid(x) (swish / SiLU) for any float x: exp only ever sees -|x|, so it cannot overflow.
NMT_INLINE float swish(float x) {
  const float e = exp_nonpositive(x < 0.0f ? x : -x);  // exp(-|x|)
  const float sigmoid = (x < 0.0f ? e : 1.0f) / (1.0f + e);
  return x * sigmoid;
}

}  // namespace core
