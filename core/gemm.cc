#include "core/gemm.h"

#include <cblas.h>

#include <atomic>
#include <chrono>
#include <cstring>

// OpenBLAS (pthreads build): stops its worker threads; the next multi-threaded call would restart them.
// Its own fork handler uses it. Weak, so another BLAS links too.
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));

namespace core {

namespace {
std::atomic<bool> g_profiling{false};
std::atomic<double> g_flops{0.0};
std::atomic<double> g_seconds{0.0};

void add(std::atomic<double>& total, double x) {
  double old = total.load(std::memory_order_relaxed);
  while (!total.compare_exchange_weak(old, old + x, std::memory_order_relaxed)) {
  }
}
}  // namespace

void set_gemm_profiling(bool enabled) { g_profiling = enabled; }

GemmStats gemm_stats() { return {g_flops.load(), g_seconds.load()}; }

GemmTimer::GemmTimer(double flops, int threads)
    : flops_(flops), threads_(threads), active_(g_profiling.load(std::memory_order_relaxed)) {
  if (active_) start_ = std::chrono::steady_clock::now();
}

GemmTimer::~GemmTimer() {
  if (!active_) return;
  add(g_flops, flops_);
  add(g_seconds, threads_ * std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc) {
  if (m <= 0 || n <= 0) return;
  const GemmTimer timer(2.0 * m * n * k);
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
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

void set_blas_threads(int n) { openblas_set_num_threads(n); }

void stop_blas_workers() {
  if (blas_thread_shutdown_) blas_thread_shutdown_();
}

}  // namespace core
