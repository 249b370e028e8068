// The one matrix product. Every GEMM in the engine goes through here (the only user of cblas.h).
#pragma once

#include <chrono>

namespace core {

// Row-major C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C.
// op(X) = X^T when the trans flag is set; lda/ldb/ldc are row strides of the stored matrices.
void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc);

// y[rows, out] = x[rows, in] * W^T + bias, W stored [out, in] (PyTorch Linear layout). bias may be null.
void linear(const float* x, int rows, int in, const float* weight, const float* bias, int out, float* y);

// Threads BLAS may use for one product.
void set_blas_threads(int n);
// Stops OpenBLAS's idle workers (a later multi-threaded product restarts them): they spin on sched_yield
// for a while after start-up, taking a core from loading the model.
void stop_blas_workers();

// Optional accounting for benchmarks: total GEMM flops (2mnk) and seconds spent inside gemm().
struct GemmStats {
  double flops = 0;
  double seconds = 0;
};
void set_gemm_profiling(bool enabled);
GemmStats gemm_stats();
// Adds one product (2mnk flops) and the time until its destruction to the totals while profiling is on,
// times `threads` when the product runs on that many (a thread team): the totals are thread-seconds.
// Used by both GEMMs: gemm() here and packed_linear() (core/packed_gemm.cc).
class GemmTimer {
 public:
  explicit GemmTimer(double flops, int threads = 1);
  ~GemmTimer();
  GemmTimer(const GemmTimer&) = delete;
  GemmTimer& operator=(const GemmTimer&) = delete;

 private:
  double flops_;
  int threads_;
  bool active_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace core
