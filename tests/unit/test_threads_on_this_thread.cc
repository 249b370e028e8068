// core::ThreadsOnThisThread: a calling thread's own count (a library Translator's, api/), nested and
// restored, leaving other threads on the process-wide count.
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "core/threads.h"

TEST_CASE("threads on this thread override the process count for this thread only", "[threads]") {
  core::set_num_threads(1);
  {
    core::ThreadsOnThisThread three(3);
    CHECK(core::num_threads() == 3);
    {
      core::ThreadsOnThisThread two(2);
      CHECK(core::num_threads() == 2);
    }
    CHECK(core::num_threads() == 3);
    int other = 0;
    std::thread([&] { other = core::num_threads(); }).join();
    CHECK(other == 1);
    // parallel_for runs on this thread's count: three workers can meet at once.
    std::atomic<int> inside{0}, most{0};
    core::parallel_for(3, [&](int) {
      const int now = ++inside;
      for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      --inside;
    });
    CHECK(most.load() >= 2);
  }
  CHECK(core::num_threads() == 1);
}
