// The one place that knows the CPU: what it and the OS support (probed once), and how much of it the
// kernels may use. NMT_CPU lowers the level for comparisons and for tests of the slower paths:
//   avx512    everything the CPU has (the default)
//   avx2      AVX2/FMA/F16C kernels only, as on a CPU without AVX-512
//   blas      f32 products on OpenBLAS; the other kernels as the CPU allows
//   portable  none of our vector code: f32 on OpenBLAS, int8 and f16 conversion in plain C++
// A level above what the CPU has falls back to the CPU's own. cpu.cc is the only file that reads the
// environment itself.
#pragma once

#include <string>

namespace core {

// Instruction sets usable by this process: the CPU reports them and the OS saves their registers.
struct CpuFeatures {
  bool avx = false, avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false;
  bool avx512_vnni = false;                 // vpdpbusd on 512-bit registers
  bool avx_vnni = false;                    // vpdpbusd on 256-bit registers (VEX)
  bool avx512_bf16 = false;                 // vdpbf16ps: measured by int8_peak, no kernel uses it
  bool amx_tile = false, amx_int8 = false;  // and the OS granted the tile data state
};

// The kernel levels, lowest first.
enum class CpuIsa { kPortable, kAvx2, kAvx512 };

struct CpuChoice {
  CpuIsa isa = CpuIsa::kPortable;
  bool f32_on_blas = true;  // f32 products through OpenBLAS instead of the packed kernels
};

// Probed on first use (cpuid, xgetbv, and on Linux the AMX permission request).
const CpuFeatures& cpu_features();
// What the kernels use: the CPU's level lowered by NMT_CPU. Read once; an unknown NMT_CPU value throws
// UsageError on every call.
const CpuChoice& cpu_choice();
inline CpuIsa cpu_isa() { return cpu_choice().isa; }
// Whether FMA-target copies may run: every level above portable implies FMA, and portable means none of
// our vector code, so the plain copies (std::fma, the same bits) run there.
inline bool fma_copies() { return cpu_isa() != CpuIsa::kPortable; }

// The pure rule behind cpu_choice, for tests: `nmt_cpu` is NMT_CPU's value or null.
CpuChoice choose_cpu(const CpuFeatures& features, const char* nmt_cpu);
std::string cpu_isa_name(CpuIsa isa);

}  // namespace core
