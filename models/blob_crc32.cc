#include "models/blob_crc32.h"

#include <immintrin.h>
#include <isa-l/crc.h>
#include <zlib.h>

#include <thread>

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

}  // namespace

uint32_t blob_crc32(const uint8_t* data, uint64_t size) {
  // Large blobs in two halves on two cores, joined exactly by zlib's crc32_combine (same CRC); below this
  // the helper thread costs more than it saves.
  constexpr uint64_t kSplitFrom = uint64_t{64} << 20;
  if (size < kSplitFrom || std::thread::hardware_concurrency() < 2) return crc32(data, size);
  const uint64_t half = size / 2;
  uint32_t first = 0;
  std::thread helper([&] { first = crc32(data, half); });
  const uint32_t second = crc32(data + half, size - half);
  helper.join();
  return static_cast<uint32_t>(crc32_combine(first, second, static_cast<z_off_t>(size - half)));
}

}  // namespace models
