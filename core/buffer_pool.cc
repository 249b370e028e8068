#include "core/buffer_pool.h"

#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <tuple>
#include <utility>

namespace core {

namespace {

// Free buffers by capacity (floats). It only ever holds buffers that were in use at once, so it is no
// larger than the busiest moment so far: a miss frees a pooled buffer before allocating (see acquire).
struct Pool {
  std::mutex mutex;
  std::multimap<size_t, float*> free_buffers;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: buffers may be released during static destruction
  return *p;
}

std::pair<float*, size_t> acquire(size_t n) {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto fit = p.free_buffers.lower_bound(n);
    if (fit != p.free_buffers.end()) {
      const std::pair<float*, size_t> taken{fit->second, fit->first};
      p.free_buffers.erase(fit);
      return taken;
    }
    // Every pooled buffer is too small: drop the largest, so buffers that no longer fit do not pile up.
    if (!p.free_buffers.empty()) {
      auto largest = std::prev(p.free_buffers.end());
      std::free(largest->second);
      p.free_buffers.erase(largest);
    }
  }
  const size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  void* raw = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (!raw) throw std::bad_alloc();
  return {static_cast<float*>(raw), n};
}

}  // namespace

PooledBuffer::PooledBuffer(size_t n) : size_(n) { std::tie(data_, capacity_) = acquire(n); }

PooledBuffer::~PooledBuffer() { release(); }

PooledBuffer::PooledBuffer(PooledBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

PooledBuffer& PooledBuffer::operator=(PooledBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void PooledBuffer::release() {
  if (!data_) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.free_buffers.emplace(capacity_, data_);
  data_ = nullptr;
}

}  // namespace core
