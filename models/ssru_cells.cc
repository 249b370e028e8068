#include "models/ssru_cells.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "models/layers.h"

namespace models {

namespace {

// Marian's form, which never overflows exp.
float sigmoid(float x) {
  if (x > 0.0f) return 1.0f / (1.0f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.0f + e);
}

}  // namespace

SsruCells::SsruCells(int max_rows, int layers, int d)
    : max_rows_(max_rows),
      layers_(layers),
      d_(d),
      cells_(static_cast<size_t>(max_rows) * layers * d),
      spare_(static_cast<size_t>(max_rows) * layers * d) {}

float* SsruCells::cells(float* base, int row, int layer) const {
  return base + (static_cast<size_t>(row) * layers_ + layer) * d_;
}

void SsruCells::start(int n_rows) {
  if (n_rows > max_rows_) throw std::invalid_argument("SsruCells: more rows than allocated");
  std::fill(cells_.data(), cells_.data() + static_cast<size_t>(n_rows) * layers_ * d_, 0.0f);
}

void SsruCells::select_rows(const std::vector<int>& src_rows) {
  const size_t row_floats = static_cast<size_t>(layers_) * d_;
  for (size_t i = 0; i < src_rows.size(); ++i) {
    std::memcpy(cells(spare_.data(), static_cast<int>(i), 0), cells(cells_.data(), src_rows[i], 0),
                row_floats * sizeof(float));
  }
  std::swap(cells_, spare_);
}

void SsruCells::step(int layer, const DecoderLayerWeights& weights, const float* in, int rows,
                     float* candidate, float* gate, float* out) {
  project(weights.ssru_input, in, rows, candidate);
  project(weights.ssru_forget, in, rows, gate);
  core::split_range(rows, kRowsPerPart, [&](int begin, int end, int) {
    for (int r = begin; r < end; ++r) {
      float* c = cells(cells_.data(), r, layer);
      const size_t at = static_cast<size_t>(r) * d_;
      for (int i = 0; i < d_; ++i) {
        const float f = sigmoid(gate[at + i]);
        c[i] = f * c[i] + (1.0f - f) * candidate[at + i];
        out[at + i] = std::max(c[i], 0.0f);
      }
    }
  });
}

}  // namespace models
