#include "core/marian_math.h"

#include "core/cpu.h"

namespace core {

namespace {

// `lanes` running sums, as Marian's float32x8 and float32x4 rows keep them.
template <int lanes>
inline void softmax_in_lanes(float* x, int n) {
  float max = x[0];
  for (int i = 1; i < n; ++i) max = std::max(max, x[i]);
  float lane_sums[lanes] = {};
  for (int i = 0; i < n; i += lanes) {
    for (int l = 0; l < lanes; ++l) {
      x[i + l] = marian_exp(x[i + l] - max);
      lane_sums[l] += x[i + l];
    }
  }
  float sum = 0.0f;
  for (int l = 0; l < lanes; ++l) sum += lane_sums[l];
  for (int i = 0; i < n; ++i) x[i] /= sum;
}

inline void softmax_in_order(float* x, int n) {
  float max = x[0];
  for (int i = 1; i < n; ++i) max = std::max(max, x[i]);
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    x[i] = expf(x[i] - max);
    sum += x[i];
  }
  for (int i = 0; i < n; ++i) x[i] /= sum;
}

inline void softmax_row(float* x, int n) {
  if (n % 8 == 0) return softmax_in_lanes<8>(x, n);
  if (n % 4 == 0) return softmax_in_lanes<4>(x, n);
  softmax_in_order(x, n);
}

void softmax_plain(float* x, int n) { softmax_row(x, n); }

__attribute__((target("fma"))) void softmax_fma(float* x, int n) { softmax_row(x, n); }

}  // namespace

void marian_softmax(float* x, int n) {
  if (n <= 0) return;
  (fma_copies() ? softmax_fma : softmax_plain)(x, n);
}

}  // namespace core
