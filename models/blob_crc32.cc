#include "models/blob_crc32.h"

#include <immintrin.h>
#include <isa-l/crc.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "models/model_error.h"

namespace models {

namespace {

// ISA-L's AVX-512 CRC returns with the vector registers' upper halves dirty (no vzeroupper): every
// SSE-encoded instruction after it then pays a merge with them. On this VM that made libm's sin/cos and
// the sinusoid table after the check ~10x slower (load CPU 0.064 -> 0.094 s). So clear them here.
__attribute__((target("avx"))) void clear_upper_halves() { _mm256_zeroupper(); }

uint32_t crc32(const uint8_t* data, uint64_t size) {
  const uint32_t crc = crc32_gzip_refl(0, data, size);
  if (__builtin_cpu_supports("avx")) clear_upper_halves();
  return crc;
}

// CRC of the file's bytes [begin, end), continuing `crc`, read through one 128 KB buffer (measured best
// of 32 KB-1 MB: small enough to stay in cache and be mapped in ~30 page faults).
uint32_t file_range_crc32(int fd, const std::string& path, uint64_t begin, uint64_t end) {
  constexpr size_t kBuffer = size_t{128} << 10;
  std::unique_ptr<uint8_t[]> buffer(new uint8_t[kBuffer]);
  uint32_t crc = 0;
  for (uint64_t at = begin; at < end;) {
    const ssize_t n = ::pread(fd, buffer.get(), static_cast<size_t>(std::min<uint64_t>(kBuffer, end - at)),
                              static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ModelError(path + ": cannot read: " + std::strerror(errno));
    if (n == 0)
      throw ModelError(path + ": ends at byte " + std::to_string(at) + " (truncated while loading?)");
    crc = crc32_gzip_refl(crc, buffer.get(), static_cast<uint64_t>(n));
    at += static_cast<uint64_t>(n);
  }
  if (__builtin_cpu_supports("avx")) clear_upper_halves();
  return crc;
}

// Large blobs in two halves on two cores, joined exactly by zlib's crc32_combine (same CRC); below this
// the helper thread costs more than it saves.
constexpr uint64_t kSplitFrom = uint64_t{64} << 20;

bool split(uint64_t size) { return size >= kSplitFrom && std::thread::hardware_concurrency() >= 2; }

uint32_t combine(uint32_t first, uint32_t second, uint64_t second_size) {
  return static_cast<uint32_t>(crc32_combine(first, second, static_cast<z_off_t>(second_size)));
}

}  // namespace

uint32_t file_crc32(int fd, const std::string& path, uint64_t size) {
  if (!split(size)) return file_range_crc32(fd, path, 0, size);
  const uint64_t half = size / 2;
  uint32_t first = 0;
  std::exception_ptr failed;
  std::thread helper([&] {
    try {
      first = file_range_crc32(fd, path, 0, half);
    } catch (...) {
      failed = std::current_exception();
    }
  });
  uint32_t second = 0;
  try {
    second = file_range_crc32(fd, path, half, size);
  } catch (...) {
    helper.join();
    throw;
  }
  helper.join();
  if (failed) std::rethrow_exception(failed);
  return combine(first, second, size - half);
}

uint32_t blob_crc32(const uint8_t* data, uint64_t size) {
  if (!split(size)) return crc32(data, size);
  const uint64_t half = size / 2;
  uint32_t first = 0;
  std::thread helper([&] { first = crc32(data, half); });
  const uint32_t second = crc32(data + half, size - half);
  helper.join();
  return combine(first, second, size - half);
}

}  // namespace models
