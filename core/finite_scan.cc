#include "core/finite_scan.h"

#include <cstring>

#include "core/simd.h"

namespace core {

// A value is non-finite when every exponent bit is set, i.e. when its exponent bits left clear are none:
// the smallest such remainder is 0. A min reduction (and-not, min per vector) rather than a flag per value;
// clones for AVX-512 and AVX2, since the baseline build compiles the loops for 128-bit vectors.
NMT_SIMD_CLONES
bool all_finite_f32(const float* x, size_t n) {
  constexpr uint32_t kExponent = 0x7f800000u;
  uint32_t smallest = kExponent;
#pragma omp simd reduction(min : smallest)
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    const uint32_t clear = ~bits & kExponent;
    smallest = clear < smallest ? clear : smallest;
  }
  return smallest != 0;
}

NMT_SIMD_CLONES
bool all_finite_f16(const uint16_t* x, size_t n) {
  constexpr uint32_t kExponent = 0x7c00u;
  uint32_t smallest = kExponent;
#pragma omp simd reduction(min : smallest)
  for (size_t i = 0; i < n; ++i) {
    const uint32_t clear = ~uint32_t{x[i]} & kExponent;
    smallest = clear < smallest ? clear : smallest;
  }
  return smallest != 0;
}

}  // namespace core
