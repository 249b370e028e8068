#include "models/positions.h"

#include <cmath>

namespace models {

namespace {

// Every kAnchorEvery-th position's angles come from sin/cos; the ones between are rotated from their
// anchor by angle addition (sin(a + j) = sin a cos j + cos a sin j): 1 sin/cos call per 16 values instead
// of one each, which made this table ~6 ms of the bundled model's 30 ms load. In double, the rotation
// lands within ~1e-13 of the direct sin(p / timescale), so the stored floats differ from it by at most one
// unit in the last place, and only rarely (tests/unit/test_transformer.cc).
constexpr int kAnchorEvery = 16;

}  // namespace

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
  auto angle = [&](int p, int k) { return marian ? p * timescale[k] : p / timescale[k]; };
  // sin and cos of the offsets 0..kAnchorEvery-1 from an anchor, per dimension pair: [j][k].
  std::vector<double> step_sin(static_cast<size_t>(kAnchorEvery) * half), step_cos(step_sin.size());
  for (int j = 0; j < kAnchorEvery; ++j) {
    for (int k = 0; k < half; ++k) {
      step_sin[static_cast<size_t>(j) * half + k] = std::sin(angle(j, k));
      step_cos[static_cast<size_t>(j) * half + k] = std::cos(angle(j, k));
    }
  }
  std::vector<double> anchor_sin(half), anchor_cos(half);
  for (int p = 0; p < n_positions; ++p) {
    const int j = p % kAnchorEvery;
    if (j == 0) {
      for (int k = 0; k < half; ++k) {
        anchor_sin[k] = std::sin(angle(p, k));
        anchor_cos[k] = std::cos(angle(p, k));
      }
    }
    const double* ss = step_sin.data() + static_cast<size_t>(j) * half;
    const double* sc = step_cos.data() + static_cast<size_t>(j) * half;
    float* row = table + static_cast<size_t>(p) * d;
    for (int k = 0; k < half; ++k) {
      // At the anchor itself (j = 0) the step is sin 0 = 0, cos 0 = 1: the anchor's values, exactly.
      const double s = anchor_sin[k] * sc[k] + anchor_cos[k] * ss[k];
      const double c = anchor_cos[k] * sc[k] - anchor_sin[k] * ss[k];
      if (layout == Positions::kSinusoidalInterleaved) {
        row[2 * k] = static_cast<float>(s);
        row[2 * k + 1] = static_cast<float>(c);
      } else {
        row[k] = static_cast<float>(s);
        row[half + k] = static_cast<float>(c);
      }
    }
  }
}

}  // namespace models
