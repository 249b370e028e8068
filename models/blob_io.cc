#include "models/blob_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "models/model_error.h"

namespace models {

void read_exactly(int fd, const std::string& path, uint64_t offset, uint64_t n, void* dst) {
  auto* out = static_cast<uint8_t*>(dst);
  for (uint64_t done = 0; done < n;) {
    const ssize_t got =
        ::pread(fd, out + done, static_cast<size_t>(n - done), static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw ModelError(path + ": cannot read: " + std::strerror(errno));
    if (got == 0) {
      throw ModelError(path + ": ends at byte " + std::to_string(offset + done) +
                       " (truncated while loading?)");
    }
    done += static_cast<uint64_t>(got);
  }
}

}  // namespace models
