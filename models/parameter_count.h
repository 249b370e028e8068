// How many parameters a model has: the one count `nmt info` and `nmt convert` both report.
#pragma once

#include <cstdint>

#include "models/checkpoint.h"

namespace models {

// Every tensor's elements except the per-row scales of int8 tensors (how the weights are stored, not
// weights).
uint64_t parameter_count(const Checkpoint& checkpoint);

}  // namespace models
