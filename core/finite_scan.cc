#include "core/finite_scan.h"

#include <cstring>

namespace core {

bool all_finite_f32(const float* x, size_t n) {
  constexpr uint32_t kExponent = 0x7f800000u;  // all ones: infinity or NaN
  uint32_t bad = 0;
#pragma omp simd reduction(| : bad)
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    bad |= (bits & kExponent) == kExponent;
  }
  return bad == 0;
}

bool all_finite_f16(const uint16_t* x, size_t n) {
  constexpr uint16_t kExponent = 0x7c00u;
  uint32_t bad = 0;
#pragma omp simd reduction(| : bad)
  for (size_t i = 0; i < n; ++i) bad |= (x[i] & kExponent) == kExponent;
  return bad == 0;
}

}  // namespace core
