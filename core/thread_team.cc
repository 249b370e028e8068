#include "core/thread_team.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__)
#include <immintrin.h>
#define NMT_CPU_RELAX() _mm_pause()
#else
#define NMT_CPU_RELAX() std::this_thread::yield()
#endif

namespace core {

namespace {

thread_local ThreadTeam* g_current = nullptr;

// Operations follow each other microseconds apart while a batch decodes, so a member spins this long for
// the next one before it sleeps (a wake-up through the kernel costs tens of microseconds).
constexpr auto kSpinFor = std::chrono::microseconds(500);

// Work is handed out in chunks, first come first served, each a share of what is left (large ones first,
// single units at the end): a thread slowed down takes fewer, instead of the whole team waiting for a
// fixed half (cores shared with other work run the same product at different speeds).
constexpr int kShareDivisor = 2;  // a chunk is (units left) / (threads x this)

}  // namespace

ThreadTeam::ThreadTeam(int threads) : previous_(g_current) {
  if (g_current) return;  // no nesting: this team stays empty and the outer one current
  for (int i = 1; i < threads; ++i) members_.emplace_back(&ThreadTeam::member_loop, this, i);
  g_current = this;
}

ThreadTeam::~ThreadTeam() {
  if (g_current == this) g_current = previous_;
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& t : members_) t.join();
}

void ThreadTeam::run_part(int part, uint32_t job) {
  const int divisor = size() * kShareDivisor;
  uint64_t ticket = ticket_.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t units_of = job_units_.load(std::memory_order_acquire);
    if (ticket >> 32 != job || units_of >> 32 != job) return;  // a newer job: its own wake-up hands it out
    const int units = static_cast<int>(units_of & 0xffffffffu);
    const int start = static_cast<int>(ticket & 0xffffffffu);
    if (start >= units) return;
    const int take = std::max(1, (units - start) / divisor);
    if (!ticket_.compare_exchange_weak(ticket, ticket + take, std::memory_order_acq_rel)) continue;
    // The chunk is ours, so the job cannot end (and its fields change) before done_units_ counts it.
    fn_(context_, start * grain_, std::min(n_, (start + take) * grain_), part);
    done_units_.fetch_add(take, std::memory_order_release);
    ticket = ticket_.load(std::memory_order_acquire);
  }
}

void ThreadTeam::run(int n, int grain, RangeFn fn, void* context) {
  const int units = (n + grain - 1) / grain;
  if (members_.empty() || units <= 1 || running_) {
    if (n > 0) fn(context, 0, n, 0);
    return;
  }
  fn_ = fn;
  context_ = context;
  n_ = n;
  grain_ = grain;
  const uint32_t job = ++job_;
  done_units_.store(0, std::memory_order_relaxed);
  job_units_.store(uint64_t{job} << 32 | static_cast<uint32_t>(units), std::memory_order_release);
  ticket_.store(uint64_t{job} << 32, std::memory_order_release);
  {
    // Under the mutex, so a member about to sleep either sees the new generation or gets the notify.
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  running_ = true;
  run_part(0, job);
  // Wait for the chunks members hold, not for members to check in: a member not yet running (asleep, or
  // its core taken by another process) has nothing of this job, and the caller does its share instead.
  for (int i = 0; done_units_.load(std::memory_order_acquire) < units; ++i) {
    NMT_CPU_RELAX();
    if (i % 1024 == 1023) std::this_thread::yield();  // let a holder preempted on this core finish
  }
  running_ = false;
}

void ThreadTeam::member_loop(int index) {
  unsigned seen = 0;
  for (;;) {
    const auto spin_until = std::chrono::steady_clock::now() + kSpinFor;
    for (int i = 0; generation_.load(std::memory_order_acquire) == seen && !stop_.load(); ++i) {
      NMT_CPU_RELAX();
      if (i % 256 == 255 && std::chrono::steady_clock::now() > spin_until) {
        std::unique_lock<std::mutex> lock(sleep_mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen || stop_.load(); });
      }
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    run_part(index, static_cast<uint32_t>(ticket_.load(std::memory_order_acquire) >> 32));
  }
}

int team_size() { return g_current ? g_current->size() : 1; }

namespace detail {

void split_range(int n, int grain, ThreadTeam::RangeFn fn, void* context) {
  if (g_current) {
    g_current->run(n, grain, fn, context);
  } else if (n > 0) {
    fn(context, 0, n, 0);
  }
}

}  // namespace detail
}  // namespace core
