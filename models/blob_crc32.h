// The CRC-32 that model.json records for weights.bin (zlib's crc32: reflected IEEE, initial 0).
#pragma once

#include <cstdint>
#include <string>

namespace models {

// Computed with ISA-L's carry-less-multiply CRC, several times zlib's speed: the check runs on every load
// of a model, so it is on the critical path of every command.
uint32_t blob_crc32(const uint8_t* data, uint64_t size);

// The same CRC of the first `size` bytes of the open file `fd`, read with pread rather than through a
// mapping, since mapping costs a page-table change per page. Throws ModelError naming `path` if a read
// fails.
uint32_t file_crc32(int fd, const std::string& path, uint64_t size);

}  // namespace models
