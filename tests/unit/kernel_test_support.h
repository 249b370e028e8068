// Helpers shared by the kernel tests: forcing a packed kernel for a test, and a double-precision
// attention the attention kernels are checked against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/packed_gemm.h"

namespace test {

struct PackedIsaGuard {  // restores the CPU's own choice after a test forces another
  core::PackedIsa saved = core::packed_isa();
  ~PackedIsaGuard() { core::force_packed_isa(saved); }
};

// ctx [d] for query q against rows rows[j] of k and v (stride d), softmax(q.k / sqrt(dh)) per head.
inline std::vector<float> naive_attention(const std::vector<float>& q, const std::vector<float>& k,
                                          const std::vector<float>& v, const std::vector<int32_t>& rows,
                                          int d, int n_heads) {
  const int dh = d / n_heads, len = static_cast<int>(rows.size());
  std::vector<float> ctx(d);
  for (int h = 0; h < n_heads; ++h) {
    std::vector<double> s(len);
    for (int j = 0; j < len; ++j) {
      double dot = 0;
      for (int i = 0; i < dh; ++i)
        dot += double{q[h * dh + i]} * k[static_cast<size_t>(rows[j]) * d + h * dh + i];
      s[j] = dot / std::sqrt(static_cast<double>(dh));
    }
    const double max = *std::max_element(s.begin(), s.end());
    double sum = 0;
    for (double& x : s) sum += (x = std::exp(x - max));
    for (int i = 0; i < dh; ++i) {
      double acc = 0;
      for (int j = 0; j < len; ++j) acc += s[j] * v[static_cast<size_t>(rows[j]) * d + h * dh + i];
      ctx[h * dh + i] = static_cast<float>(acc / sum);
    }
  }
  return ctx;
}

}  // namespace test
