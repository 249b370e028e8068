// core::ThreadTeam / split_range: every index exactly once, in grain-sized chunks, on the team's threads.
#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/thread_team.h"

namespace {

struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::mutex mutex;
  std::set<int> parts;
  std::set<std::thread::id> threads;
  bool chunks_aligned = true;

  explicit Coverage(int n) : hits(n) {}
  void record(int begin, int end, int part, int grain) {
    for (int i = begin; i < end; ++i) hits[i].fetch_add(1);
    std::lock_guard<std::mutex> lock(mutex);
    parts.insert(part);
    threads.insert(std::this_thread::get_id());
    chunks_aligned = chunks_aligned && begin % grain == 0 && begin < end;
  }
  bool each_once() const {
    for (const auto& h : hits)
      if (h.load() != 1) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("split_range without a team is one call over the whole range", "[threads]") {
  REQUIRE(core::team_size() == 1);
  int calls = 0, seen_begin = -1, seen_end = -1;
  core::split_range(100, 4, [&](int begin, int end, int part) {
    ++calls;
    seen_begin = begin;
    seen_end = end;
    REQUIRE(part == 0);
  });
  REQUIRE(calls == 1);
  REQUIRE(seen_begin == 0);
  REQUIRE(seen_end == 100);
  core::split_range(0, 4, [&](int, int, int) { ++calls; });
  REQUIRE(calls == 1);  // an empty range calls nothing
}

TEST_CASE("a team covers every index exactly once, in chunks that are multiples of the grain", "[threads]") {
  for (int threads : {2, 3}) {
    core::ThreadTeam team(threads);
    REQUIRE(core::team_size() == threads);
    for (int n : {1, 2, 7, 64, 1001, 3632}) {
      for (int grain : {1, 2, 4, 8}) {
        CAPTURE(threads, n, grain);
        Coverage c(n);
        core::split_range(n, grain, [&](int begin, int end, int part) {
          REQUIRE(part >= 0);
          REQUIRE(part < threads);
          c.record(begin, end, part, grain);
        });
        REQUIRE(c.each_once());
        REQUIRE(c.chunks_aligned);
      }
    }
    // Many calls in a row (the decoder makes ~100 per step).
    for (int call = 0; call < 200; ++call) {
      Coverage c(4096);
      core::split_range(4096, 1, [&](int begin, int end, int part) { c.record(begin, end, part, 1); });
      REQUIRE(c.each_once());
    }
    // Work goes to the other threads: the caller's chunk waits until another thread has taken the other
    // unit (members that are not running take nothing, so this waits for one to be scheduled, not a time).
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> taken{0};
    std::atomic<bool> other_thread{false};
    core::split_range(2, 1, [&](int begin, int end, int) {
      taken.fetch_add(end - begin);
      if (std::this_thread::get_id() != caller) {
        other_thread.store(true);
      } else {
        while (taken.load() < 2) std::this_thread::yield();
      }
    });
    REQUIRE(other_thread.load());
  }
  REQUIRE(core::team_size() == 1);  // gone with the team
}

TEST_CASE("a split inside a split, and a team inside a team, run on the calling thread", "[threads]") {
  core::ThreadTeam team(2);
  {
    core::ThreadTeam inner(4);  // teams do not nest: the outer one stays current
    REQUIRE(core::team_size() == 2);
  }
  REQUIRE(core::team_size() == 2);
  Coverage c(50 * 50);
  core::split_range(50, 1, [&](int begin, int end, int) {
    for (int i = begin; i < end; ++i) {
      const std::thread::id outer = std::this_thread::get_id();
      core::split_range(50, 1, [&](int b, int e, int part) {
        REQUIRE(std::this_thread::get_id() == outer);
        REQUIRE(part == 0);
        c.record(i * 50 + b, i * 50 + e, 0, 1);
      });
    }
  });
  REQUIRE(c.each_once());
}

TEST_CASE("back-to-back small jobs each run exactly once, whoever joins late", "[threads]") {
  // The caller does not wait for members that took no chunk, so a member may wake during a later job: it
  // must never run a chunk of a finished job (an extra hit below) nor leave one of the current job undone.
  core::ThreadTeam team(3);
  std::vector<std::atomic<int>> hits(8);
  bool all_once = true;
  for (int call = 0; call < 20000 && all_once; ++call) {
    const int n = 2 + call % 7;
    for (auto& h : hits) h.store(0);
    core::split_range(n, 1, [&](int begin, int end, int) {
      for (int i = begin; i < end; ++i) hits[i].fetch_add(1);
    });
    for (int i = 0; i < 8; ++i) all_once = all_once && hits[i].load() == (i < n ? 1 : 0);
  }
  REQUIRE(all_once);
}
