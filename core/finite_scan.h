// Whether stored numbers are all finite (no NaN, no infinity), checked on raw IEEE bits so one vectorised
// pass costs about as much as reading the data: the loader runs it on every weight it reads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace core {

bool all_finite_f32(const float* x, size_t n);
bool all_finite_f16(const uint16_t* x, size_t n);  // IEEE half precision bits

}  // namespace core
