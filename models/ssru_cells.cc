#include "models/ssru_cells.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "core/cpu.h"
#include "core/marian_math.h"
#include "models/layers.h"

namespace models {

namespace {

// Marian's vectorised sigmoid is e / (1 + e). From 80 up it is 1 (e + 1 rounds to e); past 88.03 its 2^n
// overflows and it would give NaN, so the answer there is 1 as well.
inline float marian_sigmoid(float x) {
  if (x >= 80.0f) return 1.0f;
  const float e = core::marian_exp(x);
  return e / (e + 1.0f);
}

// One row's gates, cells and outputs in Marian's arithmetic, c = fma(1 - f, x, f c_prev): bit for bit
// equal cells keep the next int8 product's inputs on the same side of their rounding steps as in
// marian-decoder. The FMA-target copy computes it in vector instructions; the plain copy calls std::fma:
// the same bits, more slowly, for CPUs without FMA.
inline void update_row(const float* gate, const float* candidate, float* c, float* out, int d) {
#pragma omp simd
  for (int i = 0; i < d; ++i) {
    const float f = marian_sigmoid(gate[i]);
    c[i] = std::fma(1.0f - f, candidate[i], f * c[i]);
    out[i] = std::max(c[i], 0.0f);
  }
}

__attribute__((target("fma"))) void update_row_fma(const float* gate, const float* candidate, float* c,
                                                   float* out, int d) {
  update_row(gate, candidate, c, out, d);
}

}  // namespace

void ssru_update_row(const float* gate, const float* candidate, float* c, float* out, int d) {
  (core::fma_copies() ? update_row_fma : update_row)(gate, candidate, c, out, d);
}

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
      const size_t at = static_cast<size_t>(r) * d_;
      ssru_update_row(gate + at, candidate + at, cells(cells_.data(), r, layer), out + at, d_);
    }
  });
}

}  // namespace models
