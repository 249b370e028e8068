// This machine's single-precision GEMM ceiling through core::gemm (the engine's only GEMM, OpenBLAS
// underneath), for `make bench` (tools/bench.py): the engine's achieved GEMM rate is reported against it.
//
//   sgemm_peak [N=2048] [REPS=5] [MAX_THREADS=cores]
//
// Prints one JSON line: for 1..MAX_THREADS threads, the best and median GFLOP/s of REPS products
// C[N,N] = A[N,N] * B[N,N]^T (the engine's Linear layout), plus one decoder-shaped product
// (128 rows x 2048 x 512: a beam-4 batch of 32 through an FFN) as a more attainable reference, and the
// core's own fp32 ceiling: independent fused multiply-adds on registers, the widest vectors the CPU has.
// (OpenBLAS may not know a newer CPU: Debian's 0.3.21 runs its Haswell kernels on AMD Zen 5, half the
// vector width, so the engine's packed kernels can exceed its sgemm.)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/cpu.h"
#include "core/gemm.h"
#include "core/threads.h"

namespace {

struct Rate {
  double best = 0, median = 0;
};

Rate measure(int m, int n, int k, int reps) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(n) * k),
      c(static_cast<size_t>(m) * n);
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  // Small products are repeated so one sample takes a measurable time (~20+ ms).
  const double flop = 2.0 * m * n * k;
  const int inner = std::max(1, static_cast<int>(2e9 / flop));
  core::gemm(false, true, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);  // warm-up
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i)
      core::gemm(false, true, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(flop * inner / s / 1e9);
  }
  std::sort(rates.begin(), rates.end());
  return {rates.back(), rates[rates.size() / 2]};
}

// NAME(): GFLOP/s of one thread doing only fused multiply-adds, 16 independent chains of Vec (kWidth
// floats), compiled for TARGET (FMA and SET1 are that instruction set's intrinsics).
#define NMT_FMA_RATE(NAME, TARGET, Vec, kWidth, FMA, SET1)                                           \
  __attribute__((target(TARGET))) double NAME() {                                                    \
    Vec acc[16];                                                                                     \
    for (int i = 0; i < 16; ++i) acc[i] = SET1(0.001f * i);                                          \
    const Vec a = SET1(0.9999f), b = SET1(1e-5f);                                                    \
    const long iterations = 20'000'000;                                                              \
    double best = 0;                                                                                 \
    for (int rep = 0; rep < 3; ++rep) {                                                              \
      const auto t0 = std::chrono::steady_clock::now();                                              \
      for (long n = 0; n < iterations; ++n) {                                                        \
        _Pragma("GCC unroll 16") for (int i = 0; i < 16; ++i) acc[i] = FMA(acc[i], a, b);            \
      }                                                                                              \
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); \
      best = std::max(best, 2.0 * kWidth * 16 * iterations / s / 1e9);                               \
    }                                                                                                \
    float sink[kWidth];                                                                              \
    for (int i = 1; i < 16; ++i) acc[0] = FMA(acc[i], a, acc[0]); /* every chain is used */          \
    std::memcpy(sink, &acc[0], sizeof sink);                                                         \
    if (sink[0] == 42.0f) std::puts(""); /* keeps the chains alive */                                \
    return best;                                                                                     \
  }

// clang-format off
NMT_FMA_RATE(fma_peak_avx512, "avx512f", __m512, 16, _mm512_fmadd_ps, _mm512_set1_ps)
NMT_FMA_RATE(fma_peak_avx2, "avx2,fma", __m256, 8, _mm256_fmadd_ps, _mm256_set1_ps)
// clang-format on

// 0 when the CPU has neither AVX-512 nor AVX2 with FMA.
double fma_peak() {
  const core::CpuFeatures& cpu = core::cpu_features();
  if (cpu.avx512f) return fma_peak_avx512();
  if (cpu.avx2 && cpu.fma) return fma_peak_avx2();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const int max_threads =
      argc > 3 ? std::atoi(argv[3]) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (n < 1 || reps < 1 || max_threads < 1) {
    std::fprintf(stderr, "usage: sgemm_peak [N=2048] [REPS=5] [MAX_THREADS=cores]\n");
    return 64;
  }
  std::string square = "{", decoder = "{";
  for (int t = 1; t <= max_threads; ++t) {
    core::set_num_threads(t);
    const Rate sq = measure(n, n, n, reps);
    const Rate dec = measure(128, 2048, 512, reps);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s\"%d\": {\"best\": %.2f, \"median\": %.2f}", t > 1 ? ", " : "", t,
                  sq.best, sq.median);
    square += buf;
    std::snprintf(buf, sizeof buf, "%s\"%d\": {\"best\": %.2f, \"median\": %.2f}", t > 1 ? ", " : "", t,
                  dec.best, dec.median);
    decoder += buf;
  }
  std::printf(
      "{\"n\": %d, \"reps\": %d, \"gflops\": %s}, \"decoder_128x2048x512_gflops\": %s}, "
      "\"fma_peak_gflops_per_thread\": %.2f}\n",
      n, reps, square.c_str(), decoder.c_str(), fma_peak());
  return 0;
}
