#include "core/buffer_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
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

// The pages of a pooled buffer past the first n floats go back to the system: a buffer handed to a smaller
// request would otherwise keep every page its largest user ever touched resident (uninitialised buffers
// read nothing there, and a page touched again comes back zeroed).
void release_tail(float* data, size_t n, size_t capacity) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data + n) + page - 1) / page * page;
  const uintptr_t end = reinterpret_cast<uintptr_t>(data + capacity) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

std::pair<float*, size_t> acquire(size_t n) {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto fit = p.free_buffers.lower_bound(n);
    if (fit != p.free_buffers.end()) {
      const std::pair<float*, size_t> taken{fit->second, fit->first};
      p.free_buffers.erase(fit);
      release_tail(taken.first, n, taken.second);
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
