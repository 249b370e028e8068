// Position tables: sinusoids in the three layouts of docs/checkpoint.md (the paper's computed in double,
// Marian's in float as marian-decoder computes it; stored f32).
#pragma once

#include <vector>

#include "models/model_config.h"

namespace models {

// [n_positions, d] row-major. `layout` must not be Positions::kTable.
std::vector<float> sinusoid_table(Positions layout, int n_positions, int d);
// The same into table[n_positions * d].
void fill_sinusoid_table(Positions layout, int n_positions, int d, float* table);

}  // namespace models
