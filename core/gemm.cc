#include "core/gemm.h"

#include <cblas.h>

#include <cstring>

namespace core {

void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc) {
  if (m <= 0 || n <= 0) return;
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k,
              alpha, a, lda, b, ldb, beta, c, ldc);
}

void linear(const float* x, int rows, int in, const float* weight, const float* bias, int out, float* y) {
  if (rows <= 0) return;
  float beta = 0.0f;
  if (bias) {
    // Seed every row with the bias so the GEMM accumulates onto it (saves a second pass).
    for (int r = 0; r < rows; ++r) std::memcpy(y + static_cast<size_t>(r) * out, bias, sizeof(float) * out);
    beta = 1.0f;
  }
  gemm(false, true, rows, out, in, 1.0f, x, in, weight, in, beta, y, out);
}

}  // namespace core
