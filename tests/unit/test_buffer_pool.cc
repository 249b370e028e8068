// core::PooledBuffer: a released buffer is handed to the next request it fits, and moves keep ownership.
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "core/buffer_pool.h"

namespace {

// Sizes no other test (or the engine) asks for, so the pool's other contents do not interfere.
constexpr size_t kBig = 3'000'017, kSmall = 1'000'003;

}  // namespace

TEST_CASE("a released buffer is reused by the next request that fits", "[buffer_pool]") {
  float* first = nullptr;
  {
    core::PooledBuffer a(kBig);
    REQUIRE(a.size() == kBig);
    REQUIRE(reinterpret_cast<uintptr_t>(a.data()) % 64 == 0);
    a[kBig - 1] = 1.0f;  // the whole size is usable
    first = a.data();
  }
  core::PooledBuffer b(kSmall);  // smaller: the same memory comes back
  REQUIRE(b.data() == first);
  REQUIRE(b.size() == kSmall);
  core::PooledBuffer c(kSmall);  // the pooled one is taken: a new one
  REQUIRE(c.data() != first);
}

TEST_CASE("moving a pooled buffer moves ownership, the moved-from one is empty", "[buffer_pool]") {
  core::PooledBuffer a(kSmall);
  float* p = a.data();
  core::PooledBuffer b(std::move(a));
  REQUIRE(a.data() == nullptr);
  REQUIRE(a.size() == 0);
  REQUIRE(b.data() == p);
  core::PooledBuffer c;
  c = std::move(b);
  REQUIRE(c.data() == p);
  REQUIRE(b.data() == nullptr);
  c = core::PooledBuffer(kSmall);  // the old buffer goes back to the pool, a pooled one comes out
  REQUIRE(c.size() == kSmall);
}

TEST_CASE("threads take and return buffers concurrently", "[buffer_pool]") {
  // Each thread writes its id over its buffers and reads it back: a buffer handed to two threads at once
  // shows up as a foreign value (Catch2's assertions are not thread-safe, so the check runs after join).
  std::vector<std::thread> threads;
  std::vector<int> foreign_values(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &foreign_values] {
      for (int i = 0; i < 200; ++i) {
        core::PooledBuffer buffer(1000 + static_cast<size_t>((i * 7 + t) % 50) * 100);
        for (size_t j = 0; j < buffer.size(); j += 97) buffer[j] = static_cast<float>(t);
        std::this_thread::yield();
        for (size_t j = 0; j < buffer.size(); j += 97)
          foreign_values[t] += buffer[j] != static_cast<float>(t);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int count : foreign_values) REQUIRE(count == 0);
}

TEST_CASE("a pooled buffer handed to a smaller request keeps only that request's pages", "[buffer_pool]") {
  constexpr size_t kLarge = 5'000'011, kPart = 1'000'033;  // sizes no other test asks for
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  float* data = nullptr;
  {
    core::PooledBuffer a(kLarge);
    for (size_t i = 0; i < kLarge; i += page / sizeof(float)) a[i] = 1.0f;  // every page resident
    data = a.data();
  }
  core::PooledBuffer b(kPart);
  REQUIRE(b.data() == data);
  // Residency of the whole pages of the large buffer after the part handed out.
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data + kPart) + page - 1) / page * page;
  const uintptr_t end = reinterpret_cast<uintptr_t>(data + kLarge) / page * page;
  std::vector<unsigned char> resident((end - begin) / page);
  REQUIRE(mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()) == 0);
  size_t kept = 0;
  for (unsigned char r : resident) kept += r & 1;
  CHECK(kept == 0);
  b[kPart - 1] = 2.0f;  // the part handed out stays usable
  CHECK(b[kPart - 1] == 2.0f);
}
