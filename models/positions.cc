#include "models/positions.h"

#include <cmath>

namespace models {

std::vector<float> sinusoid_table(Positions layout, int n_positions, int d) {
  std::vector<float> table(static_cast<size_t>(n_positions) * d);
  fill_sinusoid_table(layout, n_positions, d, table.data());
  return table;
}

namespace {

// Marian's table in its own float arithmetic (node_initializers.cpp): increment = logf(10000) / (d/2 - 1),
// angle = p * expf(k * -increment), sinf and cosf, every step rounded to float. Its activations start
// from these bits, so an int8 student's first products round as in marian-decoder.
void fill_marian_table(int n_positions, int d, float* table) {
  const int half = d / 2;
  // Marian divides by d/2 - 1; a table of one pair (never a real model) keeps a finite angle.
  const float increment = half > 1 ? std::log(10000.0f) / (static_cast<float>(d) / 2.0f - 1.0f) : 0.0f;
  for (int p = 0; p < n_positions; ++p) {
    float* row = table + static_cast<size_t>(p) * d;
    for (int k = 0; k < half; ++k) {
      const float angle = static_cast<float>(p) * std::exp(static_cast<float>(k) * -increment);
      row[k] = std::sin(angle);
      row[half + k] = std::cos(angle);
    }
  }
}

}  // namespace

void fill_sinusoid_table(Positions layout, int n_positions, int d, float* table) {
  if (layout == Positions::kSinusoidalMarian) return fill_marian_table(n_positions, d, table);
  const int half = d / 2;
  // Each dimension pair's timescale, once (the same double arithmetic as computing it per position).
  std::vector<double> timescale(half);
  for (int k = 0; k < half; ++k) timescale[k] = std::pow(10000.0, 2.0 * k / d);
  for (int p = 0; p < n_positions; ++p) {
    float* row = table + static_cast<size_t>(p) * d;
    for (int k = 0; k < half; ++k) {
      const double angle = p / timescale[k];
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
