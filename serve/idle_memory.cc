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
    owner_.large_since_trim_ = owner_.large_since_trim_ || large_;
    if (--owner_.in_flight_ > 0 || !owner_.large_since_trim_) return;
    owner_.large_since_trim_ = false;
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
