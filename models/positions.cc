#include "models/positions.h"

#include <cmath>

namespace models {

std::vector<float> sinusoid_table(Positions layout, int n_positions, int d) {
  std::vector<float> table(static_cast<size_t>(n_positions) * d);
  fill_sinusoid_table(layout, n_positions, d, table.data());
  return table;
}

void fill_sinusoid_table(Positions layout, int n_positions, int d, float* table) {
  const int half = d / 2;
  const bool marian = layout == Positions::kSinusoidalMarian;
  // Each dimension pair's timescale, once (the same double arithmetic as computing it per position):
  // Marian multiplies the position by it, the paper's layouts divide the position by it.
  std::vector<double> timescale(half);
  for (int k = 0; k < half; ++k) {
    if (marian) {
      // Marian: timescales spaced by log(10000) / (d/2 - 1).
      const double increment = half > 1 ? std::log(10000.0) / (half - 1) : 0.0;
      timescale[k] = std::exp(-k * increment);
    } else {
      timescale[k] = std::pow(10000.0, 2.0 * k / d);
    }
  }
  for (int p = 0; p < n_positions; ++p) {
    float* row = table + static_cast<size_t>(p) * d;
    for (int k = 0; k < half; ++k) {
      const double angle = marian ? p * timescale[k] : p / timescale[k];
      const float s = static_cast<float>(std::sin(angle)), c = static_cast<float>(std::cos(angle));
      if (layout == Positions::kSinusoidalInterleaved) {
        row[2 * k] = s;
        row[2 * k + 1] = c;
      } else {
        row[k] = s;
        row[half + k] = c;
      }
    }
  }
}

}  // namespace models
