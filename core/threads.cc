#include "core/threads.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/gemm.h"
#include "core/packed_gemm.h"

namespace core {

namespace {
int g_threads = 1;
thread_local int t_threads = 0;  // a ThreadsOnThisThread's count; 0: g_threads
std::optional<bool> g_forced_share;

// BLAS gets threads only when it does the heavy products (no packed kernel for this CPU). Otherwise it
// multiplies only attention's small matrices, where threads cost more than they give.
int blas_threads() { return packed_isa() == PackedIsa::kNone ? num_threads() : 1; }

}  // namespace

void set_num_threads(int n) {
  g_threads = n < 1 ? 1 : n;
  set_blas_threads(blas_threads());
  if (blas_threads() == 1) stop_blas_workers();
}

int num_threads() { return t_threads > 0 ? t_threads : g_threads; }

ThreadsOnThisThread::ThreadsOnThisThread(int n) : previous_(t_threads) { t_threads = n < 1 ? 1 : n; }
ThreadsOnThisThread::~ThreadsOnThisThread() { t_threads = previous_; }

void parallel_for(int n_tasks, const std::function<void(int)>& task) {
  const int workers = std::min(num_threads(), n_tasks);
  if (workers <= 1) {
    for (int i = 0; i < n_tasks; ++i) task(i);
    return;
  }
  // Our threads replace BLAS's: each GEMM runs in the calling worker.
  if (blas_threads() > 1) set_blas_threads(1);
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
  if (blas_threads() > 1) set_blas_threads(blas_threads());
  if (error) std::rethrow_exception(error);
}

bool threads_share_batches(int width) {
  if (num_threads() < 2) return false;
  if (g_forced_share) return *g_forced_share;
  return packed_isa() != PackedIsa::kNone && width >= 512;
}

void force_threads_share_batches(std::optional<bool> share) { g_forced_share = share; }

}  // namespace core
