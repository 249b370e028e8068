// Large per-batch float buffers (logits, key/value caches, scratch) are handed back to a pool instead of
// freed, so the next batch reuses pages an earlier one already faulted in instead of paying a page fault
// per fresh page, batch after batch.
#pragma once

#include <cstddef>

namespace core {

// n uninitialised floats, 64-byte aligned, taken from the pool (the smallest pooled buffer that is large
// enough, its pages past n given back to the system) or newly allocated; returned to the pool on
// destruction. Move-only. Thread-safe.
class PooledBuffer {
 public:
  PooledBuffer() = default;
  explicit PooledBuffer(size_t n);
  ~PooledBuffer();
  PooledBuffer(PooledBuffer&& other) noexcept;
  PooledBuffer& operator=(PooledBuffer&& other) noexcept;
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;

  float* data() const { return data_; }
  size_t size() const { return size_; }
  float& operator[](size_t i) const { return data_[i]; }

 private:
  void release();
  float* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace core
