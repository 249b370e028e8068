#include "models/positions.h"

#include <cmath>

namespace models {

std::vector<float> sinusoid_table(Positions layout, int n_positions, int d) {
  std::vector<float> table(static_cast<size_t>(n_positions) * d);
  const int half = d / 2;
  for (int p = 0; p < n_positions; ++p) {
    float* row = table.data() + static_cast<size_t>(p) * d;
    for (int k = 0; k < half; ++k) {
      double angle;
      if (layout == Positions::kSinusoidalMarian) {
        // Marian: timescales spaced by log(10000) / (d/2 - 1).
        const double increment = half > 1 ? std::log(10000.0) / (half - 1) : 0.0;
        angle = p * std::exp(-k * increment);
      } else {
        angle = p / std::pow(10000.0, 2.0 * k / d);
      }
      if (layout == Positions::kSinusoidalInterleaved) {
        row[2 * k] = static_cast<float>(std::sin(angle));
        row[2 * k + 1] = static_cast<float>(std::cos(angle));
      } else {
        row[k] = static_cast<float>(std::sin(angle));
        row[half + k] = static_cast<float>(std::cos(angle));
      }
    }
  }
  return table;
}

}  // namespace models
