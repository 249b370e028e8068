#include "core/portable_gemm.h"

#include <cstddef>

namespace core {

void portable_gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                   const float* b, int ldb, float beta, float* c, int ldc) {
  for (int i = 0; i < m; ++i) {
    float* c_row = c + static_cast<size_t>(i) * ldc;
    for (int j = 0; j < n; ++j) c_row[j] = beta == 0.0f ? 0.0f : beta * c_row[j];
    const auto a_at = [&](int p) {
      return trans_a ? a[static_cast<size_t>(p) * lda + i] : a[static_cast<size_t>(i) * lda + p];
    };
    if (trans_b) {  // B's rows are C's columns: one dot product each
      for (int j = 0; j < n; ++j) {
        const float* b_row = b + static_cast<size_t>(j) * ldb;
        float sum = 0.0f;
        for (int p = 0; p < k; ++p) sum += a_at(p) * b_row[p];
        c_row[j] += alpha * sum;
      }
    } else {  // a row of B scaled into C's row: contiguous on both sides
      for (int p = 0; p < k; ++p) {
        const float scale = alpha * a_at(p);
        const float* b_row = b + static_cast<size_t>(p) * ldb;
        for (int j = 0; j < n; ++j) c_row[j] += scale * b_row[j];
      }
    }
  }
}

}  // namespace core
