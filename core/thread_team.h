// Parallelism within one batch: while a ThreadTeam is alive, every split_range called on the thread that
// made it cuts its range over the team's threads (the caller is one of them); everywhere else, and with a
// team of one, split_range just calls its function on the whole range.
//
// Why: batches run side by side (parallel_for) keep a batch's working memory per thread. On a large model
// that is keys/values of 128 rows and their logits each, so two threads on one batch keep
// memory near the model's size, at the price of a hand-off per operation (a few microseconds, spinning).
//
// Every split cuts work by output rows or columns and leaves each value's arithmetic alone: results are
// bit-identical to one thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace core {

class ThreadTeam {
 public:
  // A team of `threads` (the calling thread and threads - 1 new ones), current on the calling thread
  // until destroyed. Teams do not nest: inside one, a new team of one is a no-op.
  explicit ThreadTeam(int threads);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  using RangeFn = void (*)(void* context, int begin, int end, int part);
  // Runs fn(context, begin, end, part) over chunks of [0, n) in units of `grain`; `part` names the
  // member running the chunk (0 = the caller).
  void run(int n, int grain, RangeFn fn, void* context);
  int size() const { return static_cast<int>(members_.size()) + 1; }

 private:
  void member_loop(int index);
  void run_part(int part, uint32_t job);

  std::vector<std::thread> members_;
  std::atomic<unsigned> generation_{0};  // bumped to wake members for a job
  std::atomic<bool> stop_{false};
  std::mutex sleep_mutex_;  // members that spun long without a job sleep here
  std::condition_variable wake_;
  // The current job, written before ticket_ names it; read only by a thread holding one of its chunks (a
  // job ends when all its chunks are done, so it cannot be replaced under a holder).
  RangeFn fn_ = nullptr;
  void* context_ = nullptr;
  int n_ = 0, grain_ = 1;
  // (job number << 32) | the first unit of [0, n / grain) not yet handed out: a chunk is claimed by one
  // compare-exchange that also checks the job, so a member waking late takes nothing from a newer job.
  std::atomic<uint64_t> ticket_{0};
  std::atomic<uint64_t> job_units_{0};  // (job number << 32) | its units
  std::atomic<int> done_units_{0};      // units of the current job finished
  uint32_t job_ = 0;
  bool running_ = false;  // a split inside a part runs on the calling thread alone
  ThreadTeam* previous_;
};

// Threads of the team current on this thread (1 without one): how many parts split_range may use, so a
// caller can size per-part scratch.
int team_size();

namespace detail {
void split_range(int n, int grain, ThreadTeam::RangeFn fn, void* context);
}

// fn(begin, end, part) over contiguous chunks of [0, n), each a multiple of `grain` long (but the last),
// on the current team; `part` < team_size() names the thread, so fn may use per-thread scratch. Returns
// when all chunks are done. fn must not throw.
template <class Fn>
void split_range(int n, int grain, Fn&& fn) {
  using F = std::remove_reference_t<Fn>;
  detail::split_range(
      n, grain,
      [](void* context, int begin, int end, int part) { (*static_cast<F*>(context))(begin, end, part); },
      const_cast<void*>(static_cast<const void*>(&fn)));
}

}  // namespace core
