#include "models/blob_crc32.h"

#include <immintrin.h>
#include <isa-l/crc.h>
#include <zlib.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <thread>

#include "core/cpu.h"
#include "models/blob_io.h"

namespace models {

namespace {

// ISA-L's AVX-512 CRC returns with the vector registers' upper halves dirty (no vzeroupper): every
// SSE-encoded instruction after it then pays a merge with them. On this VM that made libm's sin/cos and
// the sinusoid table after the check ~10x slower (load CPU 0.064 -> 0.094 s). So clear them here.
__attribute__((target("avx"))) void clear_upper_halves() { _mm256_zeroupper(); }

uint32_t crc32(const uint8_t* data, uint64_t size) {
  const uint32_t crc = crc32_gzip_refl(0, data, size);
  if (core::cpu_features().avx) clear_upper_halves();
  return crc;
}

// CRC of the file's bytes [begin, end), read through one 128 KB buffer (measured best
// of 32 KB-1 MB: small enough to stay in cache and be mapped in ~30 page faults).
uint32_t file_range_crc32(int fd, const std::string& path, uint64_t begin, uint64_t end) {
  constexpr size_t kBuffer = size_t{128} << 10;
  std::unique_ptr<uint8_t[]> buffer(new uint8_t[kBuffer]);
  uint32_t crc = 0;
  for (uint64_t at = begin; at < end;) {
    const uint64_t n = std::min<uint64_t>(kBuffer, end - at);
    read_exactly(fd, path, at, n, buffer.get());
    crc = crc32_gzip_refl(crc, buffer.get(), n);
    at += n;
  }
  if (core::cpu_features().avx) clear_upper_halves();
  return crc;
}

// Large blobs in two halves on two cores, joined exactly by zlib's crc32_combine (same CRC); below this
// the helper thread costs more than it saves. range_crc(begin, end) is the CRC of bytes [begin, end).
template <class RangeCrc>
uint32_t crc_in_halves(uint64_t size, const RangeCrc& range_crc) {
  constexpr uint64_t kSplitFrom = uint64_t{64} << 20;
  if (size < kSplitFrom || std::thread::hardware_concurrency() < 2) return range_crc(0, size);
  const uint64_t half = size / 2;
  uint32_t first = 0;
  std::exception_ptr failed;
  std::thread helper([&] {
    try {
      first = range_crc(0, half);
    } catch (...) {
      failed = std::current_exception();
    }
  });
  uint32_t second = 0;
  try {
    second = range_crc(half, size);
  } catch (...) {
    helper.join();
    throw;
  }
  helper.join();
  if (failed) std::rethrow_exception(failed);
  return static_cast<uint32_t>(crc32_combine(first, second, static_cast<z_off_t>(size - half)));
}

}  // namespace

uint32_t file_crc32(int fd, const std::string& path, uint64_t size) {
  return crc_in_halves(size,
                       [&](uint64_t begin, uint64_t end) { return file_range_crc32(fd, path, begin, end); });
}

uint32_t blob_crc32(const uint8_t* data, uint64_t size) {
  return crc_in_halves(size, [&](uint64_t begin, uint64_t end) { return crc32(data + begin, end - begin); });
}

}  // namespace models
