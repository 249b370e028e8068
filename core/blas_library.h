// OpenBLAS, loaded on the first matrix product instead of with the program. Its library constructor
// starts a worker per core, and each thread reserves a buffer of about 130 MB that it retries forever when
// the address space (`ulimit -v`) cannot hold it: loaded late, with one thread, and only when the buffers
// fit, no command hangs and the commands that multiply nothing never pay for it.
#pragma once

#include <cstdint>

namespace core {

// The OpenBLAS entry points the engine uses (cblas.h's types, spelled as ints).
struct BlasLibrary {
  void (*sgemm)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a,
                int lda, const float* b, int ldb, float beta, float* c, int ldc) = nullptr;
  void (*set_num_threads)(int n) = nullptr;
  int (*thread_shutdown)() = nullptr;  // optional: stops idle workers (pthreads builds)
  int max_threads = 1;                 // threads whose buffers fit the address space at load time
};

// Address space one OpenBLAS thread takes: its buffer (measured 130 MB) and stack, with room to spare.
constexpr uint64_t kBlasBytesPerThread = uint64_t{160} << 20;

// How many OpenBLAS threads fit in `address_space_left` bytes (0: not even the calling thread's).
int blas_threads_that_fit(uint64_t address_space_left);

// The library, loaded on the first call (thread-safe), or nullptr when its buffer does not fit the
// address-space limit or the library cannot be loaded: callers then multiply with their own loops.
const BlasLibrary* blas_library();

// The library if a call to blas_library() loaded it already; never loads it.
const BlasLibrary* loaded_blas_library();

}  // namespace core
