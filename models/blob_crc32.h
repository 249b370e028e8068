// The CRC-32 that model.json records for weights.bin (zlib's crc32: reflected IEEE, initial 0).
#pragma once

#include <cstdint>

namespace models {

// Computed with ISA-L's carry-less-multiply CRC (~9 GB/s here, zlib's ~1.5): the check runs on every load
// of a model (16 MB bundled, ~300 MB OPUS-MT-sized), so it is on the critical path of every command.
uint32_t blob_crc32(const uint8_t* data, uint64_t size);

}  // namespace models
