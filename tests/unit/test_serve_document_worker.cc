// serve/document_worker: a document's work in a forked child; whatever the child does costs that request
// only.
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "serve/api_error.h"
#include "serve/document_worker.h"
#include "test_support.h"

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point in_seconds(int seconds) { return Clock::now() + std::chrono::seconds(seconds); }

// The status of the ApiError run_in_worker throws, and its message in `message`.
int failure_status(const std::function<std::string()>& work, std::string& message,
                   Clock::time_point deadline = in_seconds(30),
                   uint64_t memory = serve::kDocumentWorkerMemory) {
  try {
    serve::run_in_worker(work, deadline, memory);
  } catch (const serve::ApiError& e) {
    message = e.what();
    return e.status();
  }
  return 200;
}

}  // namespace

TEST_CASE("document worker: the child's result comes back whole, larger than a pipe's buffer", "[serve]") {
  std::string big(3 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>('a' + i % 26);
  CHECK(serve::run_in_worker([&] { return big; }, in_seconds(30)) == big);
  CHECK(serve::run_in_worker([] { return std::string(); }, in_seconds(30)).empty());
}

TEST_CASE("document worker: what the child throws is the request's status", "[serve]") {
  std::string message;
  CHECK(failure_status([]() -> std::string { throw serve::ApiError(413, "too big"); }, message) == 413);
  CHECK(message == "too big");
  CHECK(failure_status([]() -> std::string { throw core::Error("page.html:3: bad"); }, message) == 400);
  CHECK(message == "Invalid request: page.html:3: bad");
  CHECK(failure_status([]() -> std::string { throw std::logic_error("oops"); }, message) == 500);
  CHECK(message == "translation failed: oops");
}

TEST_CASE("document worker: a crash, the memory bound and the deadline end the child, not the caller",
          "[serve]") {
  std::string message;
  CHECK(failure_status(
            []() -> std::string {
              signal(SIGSEGV, SIG_DFL);  // the test framework's handler would report the child as a failure
              raise(SIGSEGV);
              return "unreachable";
            },
            message) == 500);
  CHECK_THAT(message, Catch::Contains("ended abnormally"));

  // 512 MiB under a 64 MiB bound: bad_alloc in the child (or, under a sanitizer's allocator, its abort).
  CHECK(failure_status(
            [] {
              std::vector<char> huge(std::size_t{512} << 20, 'x');
              return std::string(huge.data(), 1);
            },
            message, in_seconds(30), uint64_t{64} << 20) == 500);

  const auto start = Clock::now();
  CHECK(failure_status(
            [] {
              std::this_thread::sleep_for(std::chrono::seconds(30));
              return std::string("late");
            },
            message, Clock::now() + std::chrono::milliseconds(300)) == 503);
  CHECK(Clock::now() - start < std::chrono::seconds(10));
  CHECK(serve::run_in_worker([] { return std::string("still here"); }, in_seconds(30)) == "still here");
}

TEST_CASE("document worker: forks while other threads allocate leave the child's allocator usable",
          "[serve]") {
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's AddressSanitizer allocator takes no lock around fork: a child forked while another thread
  // holds that allocator's mutex waits on it forever. glibc's malloc, which the product runs on, does.
  NMT_SKIP_TEST("AddressSanitizer's allocator is not fork-safe; the release build runs this test");
#endif
  std::atomic<bool> stop{false};
  std::vector<std::thread> allocators;
  for (int t = 0; t < 3; ++t) {
    allocators.emplace_back([&stop] {
      while (!stop) std::vector<std::string> junk(64, std::string(1000, 'y'));
    });
  }
  std::string failure;  // a child that hung (503) or failed, reported after the allocators have stopped
  for (int i = 0; i < 20 && failure.empty(); ++i) {
    try {
      const std::string got = serve::run_in_worker(
          [i] {
            std::vector<std::string> pieces(1000, std::to_string(i));
            std::thread helper([&pieces] { pieces.emplace_back("threads start in the child"); });
            helper.join();
            return pieces.back();
          },
          in_seconds(30));
      if (got != "threads start in the child") failure = "fork " + std::to_string(i) + " answered " + got;
    } catch (const serve::ApiError& e) {
      failure = "fork " + std::to_string(i) + ": " + e.what();
    }
  }
  stop = true;
  for (std::thread& t : allocators) t.join();
  CHECK(failure == "");  // prints the failure
}
