// core::all_finite_f32 / f16 (the vector clone this CPU runs): one non-finite value anywhere is found.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/finite_scan.h"

namespace {

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

}  // namespace

TEST_CASE("all_finite finds a NaN or an infinity at any place of any length", "[finite]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float bad_f32[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                           inf, -inf};
  const uint16_t bad_f16[] = {0x7e00, 0xfe00, 0x7c00, 0xfc00};  // NaN, -NaN, inf, -inf
  for (size_t n : {1, 3, 15, 16, 17, 63, 64, 65, 130}) {
    // The largest finite values, whose exponent is one short of the non-finite pattern.
    std::vector<float> f32(n, std::numeric_limits<float>::max());
    std::vector<uint16_t> f16(n, 0x7bff);
    CAPTURE(n);
    REQUIRE(core::all_finite_f32(f32.data(), n));
    REQUIRE(core::all_finite_f16(f16.data(), n));
    for (size_t at = 0; at < n; ++at) {
      for (int k = 0; k < 4; ++k) {
        CAPTURE(at, bits_of(bad_f32[k]));
        f32[at] = bad_f32[k];
        f16[at] = bad_f16[k];
        CHECK_FALSE(core::all_finite_f32(f32.data(), n));
        CHECK_FALSE(core::all_finite_f16(f16.data(), n));
      }
      f32[at] = -std::numeric_limits<float>::max();
      f16[at] = 0xfbff;
    }
    CHECK(core::all_finite_f32(f32.data(), n));
    CHECK(core::all_finite_f16(f16.data(), n));
  }
}
