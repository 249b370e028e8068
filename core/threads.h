// One thread setting drives our own loops (and BLAS, on CPUs without a packed kernel, where BLAS does the
// heavy products); parallel regions never nest: inside parallel_for every worker runs BLAS single-threaded.
#pragma once

#include <functional>
#include <optional>

namespace core {

// Sets the number of threads used by parallel_for (and BLAS, see above). n >= 1.
void set_num_threads(int n);
// The calling thread's count: its ThreadsOnThisThread's while one is alive, else set_num_threads's.
int num_threads();

// While alive, parallel_for, threads_share_batches and num_threads on the calling thread use `n` (>= 1)
// instead of the process-wide count: a library caller's threads per translator (api/). Nests; BLAS's own
// thread count (CPUs without packed kernels) stays process-wide.
class ThreadsOnThisThread {
 public:
  explicit ThreadsOnThisThread(int n);
  ~ThreadsOnThisThread();
  ThreadsOnThisThread(const ThreadsOnThisThread&) = delete;
  ThreadsOnThisThread& operator=(const ThreadsOnThisThread&) = delete;

 private:
  int previous_;
};

// Runs task(i) for i in [0, n_tasks) on up to num_threads() threads (the caller is one of them),
// handing out tasks in order. BLAS runs single-threaded meanwhile. The first exception thrown by a
// task is rethrown after all workers stop; remaining tasks are skipped.
void parallel_for(int n_tasks, const std::function<void(int)>& task);

// Whether the threads share each batch (core/thread_team.h) rather than decode a batch each, for a model
// whose products are `width` columns wide. Sharing keeps one batch's state in memory instead of one per
// thread, and pays off where the products are wide enough to split between the threads: width >= 512,
// on the packed kernels (BLAS threads its own products), with two threads or more.
bool threads_share_batches(int width);
// For tests: share (true) or not (false) whatever the width and kernels, with two threads or more;
// empty restores the rule above.
void force_threads_share_batches(std::optional<bool> share);

}  // namespace core
