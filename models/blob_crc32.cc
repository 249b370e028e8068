#include "models/blob_crc32.h"

#include <immintrin.h>
#include <isa-l/crc.h>

#include <algorithm>
#include <memory>

#include "core/cpu.h"
#include "models/blob_io.h"

namespace models {

namespace {

// ISA-L's AVX-512 CRC returns with the vector registers' upper halves dirty (no vzeroupper), and every
// SSE-encoded instruction after it (libm's sin/cos among them) would then pay a merge with them.
__attribute__((target("avx"))) void clear_upper_halves() { _mm256_zeroupper(); }

void after_isal() {
  if (core::cpu_features().avx) clear_upper_halves();
}

}  // namespace

uint32_t blob_crc32(const uint8_t* data, uint64_t size) {
  const uint32_t crc = crc32_gzip_refl(0, data, size);
  after_isal();
  return crc;
}

// Read through one 128 KB buffer: small enough to stay in cache and to be faulted in once.
uint32_t file_crc32(int fd, const std::string& path, uint64_t size) {
  constexpr size_t kBuffer = size_t{128} << 10;
  std::unique_ptr<uint8_t[]> buffer(new uint8_t[kBuffer]);
  uint32_t crc = 0;
  for (uint64_t at = 0; at < size;) {
    const uint64_t n = std::min<uint64_t>(kBuffer, size - at);
    read_exactly(fd, path, at, n, buffer.get());
    crc = crc32_gzip_refl(crc, buffer.get(), n);
    at += n;
  }
  after_isal();
  return crc;
}

}  // namespace models
