// Unsigned little-endian numbers in the bytes of a model file (Marian's .bin and shortlist).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace models {

// The `width`-byte number (width <= 8) at `at`; the caller has checked that it lies inside `bytes`.
inline uint64_t little_endian(const std::string& bytes, size_t at, size_t width) {
  uint64_t v = 0;
  for (size_t i = width; i-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[at + i]);
  return v;
}

}  // namespace models
