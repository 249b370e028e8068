// This machine's int8 ceiling and what core::int8_linear reaches, for `make bench` (tools/bench.py).
//
//   int8_peak [REPS=5]
//
// Prints one JSON line: the core's int8 peak in GOP/s (2 ops per multiply-add) for one thread, measured
// like sgemm_peak's FMA peak (independent chains on registers): vpdpbusd on 512-bit registers when the
// CPU has AVX-512 VNNI, and the AVX2 int8 sequence (vpmaddubsw, vpmaddwd, vpaddd: 32 multiply-adds; the
// AVX2 kernel reaches the same products with vpmaddwd on int16, 16 at a time); then, per int8 kernel this
// CPU has and for the f32 packed kernel, the best GOP/s of one thread on decoder-shaped products (128
// rows: a beam-4 batch of 32; 12 for the logits, as the search asks for them with int8 weights), and each
// vector int8 kernel's share of its peak in percent. Also the AVX-512 BF16 peak (0 without it).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cpu.h"
#include "core/int8_gemm.h"
#include "core/packed_gemm.h"

namespace {

// Short runs (~1 ms for the peaks, ~5 ms per product), best of many: a scheduler's time slice is a few
// ms, so on a busy machine most runs still get one whole.
constexpr long kIterations = 200'000;
constexpr int kPeakRuns = 200;

// The best GOP/s of `product` (ops operations) over `reps` runs, each a whole number of calls of ~1e8
// operations, after one untimed call.
template <class Product>
double best_rate(double ops, int reps, const Product& product) {
  const int inner = std::max(1, static_cast<int>(1e8 / ops));
  product();
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i) product();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, ops * inner / s / 1e9);
  }
  return best;
}

// Each peak loop runs 12 independent chains of one instruction on named accumulators c0..c11 (an array of
// them stays in memory around inline assembly): STEP(acc) is one instruction into acc.
#define NMT_CHAINS(T, zero)                                                                               \
  T c0 = zero, c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0, c9 = c0, c10 = c0, \
    c11 = c0
#define NMT_EACH_CHAIN(STEP) \
  STEP(c0);                  \
  STEP(c1);                  \
  STEP(c2);                  \
  STEP(c3);                  \
  STEP(c4);                  \
  STEP(c5);                  \
  STEP(c6);                  \
  STEP(c7);                  \
  STEP(c8);                  \
  STEP(c9);                  \
  STEP(c10);                 \
  STEP(c11)
constexpr int kChains = 12;  // NMT_EACH_CHAIN's accumulators
// The sums counted as used, so the compiler keeps the loop that makes them.
#define NMT_KEEP_CHAINS()                                                                                \
  __asm__ volatile("" ::"v"(c0), "v"(c1), "v"(c2), "v"(c3), "v"(c4), "v"(c5), "v"(c6), "v"(c7), "v"(c8), \
                   "v"(c9), "v"(c10), "v"(c11))

#define NMT_DPBUSD(acc) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void vnni_chains() {
  NMT_CHAINS(__m512i, _mm512_set1_epi32(0));
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  for (long n = 0; n < kIterations; ++n) {
    NMT_EACH_CHAIN(NMT_DPBUSD);
  }
  NMT_KEEP_CHAINS();
}
double vnni_peak() { return best_rate(2.0 * 64 * kChains * kIterations, kPeakRuns, vnni_chains); }
#undef NMT_DPBUSD

// In assembly for the same reason, and because from intrinsics GCC computes the loop-invariant products
// once, outside the loop, leaving only the adds to time.
#define NMT_AVX2_STEP(acc)                                                                           \
  do {                                                                                               \
    __m256i t;                                                                                       \
    __asm__("vpmaddubsw %[b], %[a], %[t]\n\tvpmaddwd %[ones], %[t], %[t]\n\tvpaddd %[t], %[c], %[c]" \
            : [c] "+v"(acc), [t] "=&v"(t)                                                            \
            : [a] "v"(a), [b] "v"(b), [ones] "v"(ones));                                             \
  } while (0)
__attribute__((target("avx2"))) void avx2_chains() {
  NMT_CHAINS(__m256i, _mm256_set1_epi32(0));
  const __m256i a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(-2), ones = _mm256_set1_epi16(1);
  for (long n = 0; n < kIterations; ++n) {
    NMT_EACH_CHAIN(NMT_AVX2_STEP);
  }
  NMT_KEEP_CHAINS();
}
double avx2_peak() { return best_rate(2.0 * 32 * kChains * kIterations, kPeakRuns, avx2_chains); }
#undef NMT_AVX2_STEP

// The bf16 dot product (vdpbf16ps: 32 multiply-adds of bf16 pairs into f32 per 512-bit instruction), for
// the choice between bf16 and int8 weights: a bf16 kernel runs below this peak, an int8 one below vpdpbusd's.
#define NMT_DPBF16(acc) __asm__("vdpbf16ps %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))
__attribute__((target("avx512f,avx512bf16"))) void bf16_chains() {
  NMT_CHAINS(__m512, _mm512_set1_ps(0.0f));
  const __m512 a = _mm512_set1_ps(1.5f), b = _mm512_set1_ps(-0.5f);  // read as bf16 pairs
  for (long n = 0; n < kIterations; ++n) {
    NMT_EACH_CHAIN(NMT_DPBF16);
  }
  NMT_KEEP_CHAINS();
}
double bf16_peak() { return best_rate(2.0 * 32 * kChains * kIterations, kPeakRuns, bf16_chains); }
#undef NMT_DPBF16
#undef NMT_KEEP_CHAINS
#undef NMT_EACH_CHAIN
#undef NMT_CHAINS

struct Shape {
  int rows, out, in;
};

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  if (reps < 1) {
    std::fprintf(stderr, "usage: int8_peak [REPS=5]\n");
    return 64;
  }
  const core::CpuFeatures& cpu = core::cpu_features();
  const double peak_vnni = cpu.avx512_vnni ? vnni_peak() : 0.0, peak_avx2 = cpu.avx2 ? avx2_peak() : 0.0;
  const double peak_bf16 = cpu.avx512_bf16 ? bf16_peak() : 0.0;
  const Shape shapes[] = {{128, 2048, 512},  {128, 512, 2048}, {128, 1536, 512}, {128, 8000, 512},
                          {128, 58101, 512}, {12, 58101, 512}};  // the last: the int8 logits of one search
                                                                 // group, weights streamed from memory
  std::string rates;
  for (const Shape& s : shapes) {
    std::vector<float> x(static_cast<size_t>(s.rows) * s.in), w(static_cast<size_t>(s.out) * s.in);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 500.0f - 1.0f;
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 104729) % 1000) / 500.0f - 1.0f;
    std::vector<float> y(static_cast<size_t>(s.rows) * s.out);
    core::Int8Matrix q(s.out, s.in);
    q.quantize_rows(0, s.out, w.data());
    const double ops = 2.0 * s.rows * s.out * s.in;
    char name[64];
    std::snprintf(name, sizeof name, "%dx%dx%d", s.rows, s.out, s.in);
    std::string row = std::string(rates.empty() ? "" : ", ") + "\"" + name + "\": {";
    const core::Int8Kernel cpu_kernel = core::int8_kernel();
    bool first = true;
    for (core::Int8Kernel k :
         {core::Int8Kernel::kAvx512Vnni, core::Int8Kernel::kAvx2, core::Int8Kernel::kPortable}) {
      core::force_int8_kernel(k);
      if (core::int8_kernel() != k || (k == core::Int8Kernel::kPortable && cpu_kernel != k)) continue;
      const double rate =
          best_rate(ops, reps, [&] { core::int8_linear(x.data(), s.rows, q, nullptr, y.data()); });
      const double peak = k == core::Int8Kernel::kAvx512Vnni ? peak_vnni
                          : k == core::Int8Kernel::kAvx2     ? peak_avx2
                                                             : 0.0;
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s\"int8 %s\": %.1f", first ? "" : ", ", core::int8_kernel_name(k),
                    rate);
      row += buf;
      if (peak > 0) {
        std::snprintf(buf, sizeof buf, ", \"int8 %s %% of peak\": %.0f", core::int8_kernel_name(k),
                      100.0 * rate / peak);
        row += buf;
      }
      first = false;
    }
    core::force_int8_kernel(cpu_kernel);
    if (core::packed_isa() != core::PackedIsa::kNone) {
      const core::PackedMatrix p(w.data(), s.out, s.in);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s\"f32 packed\": %.1f", first ? "" : ", ", best_rate(ops, reps, [&] {
                      core::packed_linear(x.data(), s.rows, p, nullptr, y.data());
                    }));
      row += buf;
    }
    rates += row + "}";
  }
  std::printf(
      "{\"int8_peak_gops_per_thread\": {\"avx512_vnni\": %.1f, \"avx2\": %.1f}, "
      "\"bf16_peak_gops_per_thread\": "
      "%.1f, \"kernel\": \"%s\", \"gops_per_thread\": {%s}}\n",
      peak_vnni, peak_avx2, peak_bf16, core::int8_kernel_name(core::int8_kernel()), rates.c_str());
  return 0;
}
