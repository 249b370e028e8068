// The recurrent state of an SSRU decoder (model_config.h): one cell vector per row and layer, which the
// search's row selection reorders as it keeps, drops and copies hypotheses. Marian's equations, per layer
// and row, for the layer's input u:
//   x = W u;  f = sigmoid(Wf u + bf);  c = f * c_prev + (1 - f) * x;  output relu(c)
// with c = 0 before the first position.
#pragma once

#include <vector>

#include "core/buffer_pool.h"
#include "models/transformer_weights.h"

namespace models {

class SsruCells {
 public:
  SsruCells(int max_rows, int layers, int d);

  // `n_rows` rows, every cell zero.
  void start(int n_rows);
  // Row i takes row src_rows[i]'s cells.
  void select_rows(const std::vector<int>& src_rows);
  // Layer `layer`'s step for the first `rows` rows: out[rows, d] = relu(c) from in[rows, d], updating c.
  // candidate and gate: scratch of rows * d floats each.
  void step(int layer, const DecoderLayerWeights& weights, const float* in, int rows, float* candidate,
            float* gate, float* out);

 private:
  float* cells(float* base, int row, int layer) const;

  int max_rows_, layers_, d_;
  core::PooledBuffer cells_, spare_;  // [max_rows, layers, d]
};

// One row of a layer's step after its two products: f = sigmoid(gate), c = f c + (1 - f) candidate,
// out = relu(c), all d values, in the arithmetic of Marian's CPU build (ssru_cells.cc).
void ssru_update_row(const float* gate, const float* candidate, float* c, float* out, int d);

}  // namespace models
