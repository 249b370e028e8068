// Memory given back to the system after a load peak: glibc keeps what a request freed in its arenas (one per
// connection thread, up to 8 a core), so a burst of large bodies would leave the server's RSS at its peak.
// When the last request in flight ends and the requests since the last time carried kTrimAfterBytes (bodies
// and answers), malloc_trim(0) returns the arenas' free pages: after one large request, or after a few
// hundred small ones, never more often.
#pragma once

#include <cstddef>
#include <mutex>

namespace serve {

// Bytes of bodies and answers since the last trim that make another worth its walk over every arena.
inline constexpr std::size_t kTrimAfterBytes = std::size_t{64} << 10;

class IdleMemory {
 public:
  // One request in flight while alive; count() adds the bytes it carried.
  class Request {
   public:
    explicit Request(IdleMemory& owner);
    ~Request();
    Request(const Request&) = delete;
    Request& operator=(const Request&) = delete;
    void count(std::size_t bytes) { bytes_ += bytes; }

   private:
    IdleMemory& owner_;
    std::size_t bytes_ = 0;
  };

  // Times the memory was returned (for /health and the tests).
  std::size_t trims() const;

 private:
  mutable std::mutex mutex_;
  std::size_t in_flight_ = 0;
  std::size_t bytes_since_trim_ = 0;
  std::size_t trims_ = 0;
};

}  // namespace serve
