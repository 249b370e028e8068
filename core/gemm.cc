#include "core/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "core/blas_library.h"
#include "core/portable_gemm.h"

namespace core {

namespace {
std::atomic<bool> g_profiling{false};
std::atomic<double> g_flops{0.0};
std::atomic<double> g_seconds{0.0};
std::atomic<int> g_blas_threads{1};  // what the engine asked for; applied once the library is loaded

void apply_blas_threads(const BlasLibrary& blas) {
  blas.set_num_threads(std::min(g_blas_threads.load(), blas.max_threads));
}

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
  static const BlasLibrary* const blas = [] {
    const BlasLibrary* loaded = blas_library();
    if (loaded) apply_blas_threads(*loaded);
    return loaded;
  }();
  if (!blas) {  // OpenBLAS's buffer does not fit the address-space limit
    portable_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  blas->sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n,
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

void set_blas_threads(int n) {
  g_blas_threads = std::max(1, n);
  if (const BlasLibrary* blas = loaded_blas_library()) apply_blas_threads(*blas);
}

void stop_blas_workers() {
  const BlasLibrary* blas = loaded_blas_library();
  if (blas && blas->thread_shutdown) blas->thread_shutdown();
}

}  // namespace core
