#include "core/threads.h"

#include <cblas.h>

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace core {

namespace {
int g_threads = 1;
}

void set_num_threads(int n) {
  g_threads = n < 1 ? 1 : n;
  openblas_set_num_threads(g_threads);
}

int num_threads() { return g_threads; }

void parallel_for(int n_tasks, const std::function<void(int)>& task) {
  const int workers = std::min(g_threads, n_tasks);
  if (workers <= 1) {
    for (int i = 0; i < n_tasks; ++i) task(i);
    return;
  }
  // Our threads replace BLAS's: each GEMM runs in the calling worker.
  openblas_set_num_threads(1);
  std::atomic<int> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (int i; (i = next.fetch_add(1)) < n_tasks;) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(n_tasks);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  openblas_set_num_threads(g_threads);
  if (error) std::rethrow_exception(error);
}

}  // namespace core
