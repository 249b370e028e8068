// Reading a model's blob with pread (models/checkpoint.cc, models/blob_crc32.cc).
#pragma once

#include <cstdint>
#include <string>

namespace models {

// Bytes [offset, offset + n) of the open file `fd` into dst, retrying short reads and EINTR. Throws
// ModelError naming `path` if a read fails or the file ends first.
void read_exactly(int fd, const std::string& path, uint64_t offset, uint64_t n, void* dst);

}  // namespace models
