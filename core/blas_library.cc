#include "core/blas_library.h"

#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace core {

namespace {

std::atomic<const BlasLibrary*> g_loaded{nullptr};

// The address-space limit less what is mapped now; UINT64_MAX without a limit.
uint64_t address_space_left() {
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  unsigned long long mapped_pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%llu", &mapped_pages) != 1) mapped_pages = 0;
    std::fclose(statm);
  }
  const uint64_t mapped = mapped_pages * static_cast<uint64_t>(::sysconf(_SC_PAGE_SIZE));
  const uint64_t limit = static_cast<uint64_t>(as.rlim_cur);
  return limit > mapped ? limit - mapped : 0;
}

template <typename Fn>
Fn symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(::dlsym(handle, name));
}

const BlasLibrary* load() {
  const int fit = blas_threads_that_fit(address_space_left());
  if (fit < 1) return nullptr;
  // Read by OpenBLAS's constructor: one thread now, so no worker starts before a product needs it; the
  // engine asks for more through set_num_threads. A value the user set wins.
  ::setenv("OPENBLAS_NUM_THREADS", "1", 0);
  void* handle = ::dlopen(NMT_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {  // a broken install: slow, not wrong, and said once
    std::fprintf(stderr, "nmt: warning: cannot load OpenBLAS (%s); matrix products run on portable loops\n",
                 ::dlerror());
    return nullptr;
  }
  auto* blas = new BlasLibrary;  // lives as long as the process, as the library does
  blas->sgemm = symbol<decltype(blas->sgemm)>(handle, "cblas_sgemm");
  blas->set_num_threads = symbol<decltype(blas->set_num_threads)>(handle, "openblas_set_num_threads");
  blas->thread_shutdown = symbol<decltype(blas->thread_shutdown)>(handle, "blas_thread_shutdown_");
  blas->max_threads = fit;
  if (!blas->sgemm || !blas->set_num_threads) {
    delete blas;
    return nullptr;
  }
  return blas;
}

}  // namespace

int blas_threads_that_fit(uint64_t address_space_left) {
  const uint64_t fit = address_space_left / kBlasBytesPerThread;
  return fit > 1024 ? 1024 : static_cast<int>(fit);
}

const BlasLibrary* blas_library() {
  static std::once_flag once;
  std::call_once(once, [] { g_loaded = load(); });
  return g_loaded.load(std::memory_order_acquire);
}

const BlasLibrary* loaded_blas_library() { return g_loaded.load(std::memory_order_acquire); }

}  // namespace core
