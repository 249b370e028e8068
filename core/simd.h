// Hot loops are compiled three times, for AVX-512, AVX2+FMA and the x86-64 baseline, and the loader picks
// the best one this CPU runs (GCC/clang function multi-versioning): one portable binary, wide vectors
// where the CPU has them. Results may differ in the last bits between CPUs (vector width changes the
// order of a reduction, FMA contracts a*b+c), never between runs on one CPU.
#pragma once

#include <cstring>

#if defined(__x86_64__) && !defined(NMT_NO_SIMD_CLONES)
#define NMT_SIMD_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#else
#define NMT_SIMD_CLONES
#endif

// For a clone whose results must not move between CPUs (values rounded to integers): GCC fuses a * b + c
// into one FMA across statements where the CPU has FMA, and this keeps the two roundings. Clang fuses only
// within one expression, so such code keeps the product and the sum in separate statements for it.
#if defined(__clang__)
#define NMT_NO_FMA_CONTRACTION
#else
#define NMT_NO_FMA_CONTRACTION __attribute__((optimize("fp-contract=off")))
#endif

// For helpers of a NMT_SIMD_CLONES function: inlined into each clone, so compiled for its CPU. A helper the
// compiler chose to call instead would be compiled for the x86-64 baseline only.
#define NMT_INLINE __attribute__((always_inline)) inline

namespace core {

// 16 floats as one GCC vector, for loops the auto-vectoriser handles badly (reductions, register-resident
// sums); the compiler splits it where a clone's CPU has narrower vectors.
typedef float Vec16 __attribute__((vector_size(64)));
// By reference: returning a 512-bit vector by value would make -Wpsabi warn in the non-AVX-512 clones.
NMT_INLINE void load16(Vec16& v, const float* p) { std::memcpy(&v, p, sizeof v); }

}  // namespace core
