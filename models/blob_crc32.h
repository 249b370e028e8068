// The CRC-32 that model.json records for weights.bin (zlib's crc32: reflected IEEE, initial 0).
#pragma once

#include <cstdint>
#include <string>

namespace models {

// Computed with ISA-L's carry-less-multiply CRC (~9 GB/s here, zlib's ~1.5): the check runs on every load
// of a model (16 MB bundled, ~300 MB OPUS-MT-sized), so it is on the critical path of every command.
uint32_t blob_crc32(const uint8_t* data, uint64_t size);

// The same CRC of the first `size` bytes of the open file `fd`, read with pread rather than through a
// mapping: on a VM each page mapped is a page-table change (~2 us per 4 KB here, 8-10 ms for the bundled
// 15 MB blob), copying from the page cache ~2.5 ms. Throws ModelError naming `path` if a read fails.
uint32_t file_crc32(int fd, const std::string& path, uint64_t size);

}  // namespace models
