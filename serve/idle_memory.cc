#include "serve/idle_memory.h"

#include <malloc.h>

namespace serve {

IdleMemory::Request::Request(IdleMemory& owner) : owner_(owner) {
  const std::lock_guard<std::mutex> lock(owner_.mutex_);
  ++owner_.in_flight_;
}

IdleMemory::Request::~Request() {
  {
    const std::lock_guard<std::mutex> lock(owner_.mutex_);
    owner_.bytes_since_trim_ += bytes_;
    if (--owner_.in_flight_ > 0 || owner_.bytes_since_trim_ < kTrimAfterBytes) return;
    owner_.bytes_since_trim_ = 0;
    ++owner_.trims_;
  }
  // Outside the lock: a trim walks every arena, and requests starting meanwhile need not wait for it.
  malloc_trim(0);
}

std::size_t IdleMemory::trims() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return trims_;
}

}  // namespace serve
