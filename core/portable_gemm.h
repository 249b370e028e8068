// A matrix product in plain loops, for when OpenBLAS cannot be loaded (core/blas_library.h): slower
// than BLAS on large products, as exact as any summation order.
#pragma once

namespace core {

// Row-major C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C, as core::gemm; C is not read when beta
// is 0.
void portable_gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                   const float* b, int ldb, float beta, float* c, int ldc);

}  // namespace core
