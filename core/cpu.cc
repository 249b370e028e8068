#include "core/cpu.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace core {

namespace {

#if defined(__x86_64__)
uint64_t xgetbv0() {
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// Linux hands out the AMX tile data state only on request, once per process (arch_prctl).
bool os_grants_amx_tiles() {
#if defined(__linux__)
  constexpr int kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

CpuFeatures probe() {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool osxsave = c & (1u << 27);
  if (!osxsave) return f;  // the OS saves no extended state: no AVX of any kind
  const uint64_t xcr0 = xgetbv0();
  const bool ymm_saved = (xcr0 & 0x6) == 0x6;            // SSE and AVX state
  const bool zmm_saved = (xcr0 & 0xe6) == 0xe6;          // plus opmask and the upper ZMM registers
  const bool tiles_saved = (xcr0 & 0x60000) == 0x60000;  // XTILECFG and XTILEDATA
  f.avx = ymm_saved && (c & (1u << 28));
  f.fma = f.avx && (c & (1u << 12));
  f.f16c = f.avx && (c & (1u << 29));
  unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  f.avx2 = f.avx && (b & (1u << 5));
  f.avx512f = zmm_saved && (b & (1u << 16));
  f.avx512bw = f.avx512f && (b & (1u << 30));
  f.avx512vl = f.avx512f && (b & (1u << 31));
  f.avx512_vnni = f.avx512f && (c & (1u << 11));
  const bool amx_tile = tiles_saved && (d & (1u << 24)), amx_int8 = amx_tile && (d & (1u << 25));
  __cpuid_count(7, 1, a, b, c, d);
  f.avx_vnni = f.avx2 && (a & (1u << 4));
  f.avx512_bf16 = f.avx512f && (a & (1u << 5));
  if (amx_tile && os_grants_amx_tiles()) {
    f.amx_tile = true;
    f.amx_int8 = amx_int8;
  }
  return f;
}
#else
CpuFeatures probe() { return {}; }
#endif

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = probe();
  return features;
}

CpuChoice choose_cpu(const CpuFeatures& f, const char* nmt_cpu) {
  CpuIsa best = CpuIsa::kPortable;
  if (f.avx2 && f.fma && f.f16c) best = CpuIsa::kAvx2;
  if (best == CpuIsa::kAvx2 && f.avx512f && f.avx512bw && f.avx512vl) best = CpuIsa::kAvx512;
  const std::string want = nmt_cpu ? nmt_cpu : "";
  CpuChoice choice;
  if (want.empty() || want == "avx512") {
    choice.isa = best;
  } else if (want == "avx2") {
    choice.isa = best < CpuIsa::kAvx2 ? best : CpuIsa::kAvx2;
  } else if (want == "blas") {
    choice.isa = best;
    choice.f32_on_blas = true;
    return choice;
  } else if (want == "portable") {
    return choice;
  } else {
    throw UsageError("NMT_CPU=" + want + ": expected avx512, avx2, blas or portable");
  }
  choice.f32_on_blas = choice.isa == CpuIsa::kPortable;
  return choice;
}

const CpuChoice& cpu_choice() {
  struct Read {
    CpuChoice choice;
    std::string error;
  };
  static const Read read = [] {
    Read r;
    try {
      r.choice = choose_cpu(cpu_features(), std::getenv("NMT_CPU"));
    } catch (const UsageError& e) {
      r.error = e.what();
    }
    return r;
  }();
  if (!read.error.empty()) throw UsageError(read.error);
  return read.choice;
}

std::string cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512:
      return "avx512";
    case CpuIsa::kAvx2:
      return "avx2";
    default:
      return "portable";
  }
}

}  // namespace core
