// Memory given back to the system after a load peak: glibc keeps what a request freed in its arenas (one per
// connection thread, up to 8 a core), so a burst of large bodies would leave the server's RSS at its peak.
// When the last request in flight ends and a large one ran since the last time, malloc_trim(0) returns the
// arenas' free pages.
#pragma once

#include <cstddef>
#include <mutex>

namespace serve {

// A request whose body or answer reaches this many bytes leaves enough freed memory behind to return.
inline constexpr std::size_t kTrimAfterBytes = std::size_t{64} << 10;

class IdleMemory {
 public:
  // One request in flight while alive; call large() when it holds kTrimAfterBytes or more.
  class Request {
   public:
    explicit Request(IdleMemory& owner);
    ~Request();
    Request(const Request&) = delete;
    Request& operator=(const Request&) = delete;
    void large() { large_ = true; }

   private:
    IdleMemory& owner_;
    bool large_ = false;
  };

  // Times the memory was returned (for /health and the tests).
  std::size_t trims() const;

 private:
  mutable std::mutex mutex_;
  std::size_t in_flight_ = 0;
  bool large_since_trim_ = false;
  std::size_t trims_ = 0;
};

}  // namespace serve
