// The one matrix product. Every GEMM in the engine goes through here (the only user of cblas.h).
#pragma once

namespace core {

// Row-major C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C.
// op(X) = X^T when the trans flag is set; lda/ldb/ldc are row strides of the stored matrices.
void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc);

// y[rows, out] = x[rows, in] * W^T + bias, W stored [out, in] (PyTorch Linear layout). bias may be null.
void linear(const float* x, int rows, int in, const float* weight, const float* bias, int out, float* y);

// Optional accounting for benchmarks: total GEMM flops (2mnk) and seconds spent inside gemm().
struct GemmStats {
  double flops = 0;
  double seconds = 0;
};
void set_gemm_profiling(bool enabled);
GemmStats gemm_stats();
// For the other GEMM (core/packed_gemm.cc): whether to time, and adding one product to the totals.
bool gemm_profiling();
void add_gemm_stats(double flops, double seconds);

}  // namespace core
