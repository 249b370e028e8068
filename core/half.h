// IEEE 754 half precision to single precision (weights may be stored as f16).
#pragma once

#include <cstddef>
#include <cstdint>

namespace core {

float half_to_float(uint16_t h);
void half_to_float(const uint16_t* src, float* dst, size_t n);
uint16_t float_to_half(float f);  // round to nearest even; for tests and converters

}  // namespace core
