#include "api/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "core/regular_file.h"

namespace api {

std::string read_file(const std::string& path) {
  return core::read_regular_file(path, "input", kMaxFileBytes);
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  std::string temp = path + ".nmt-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw core::Error(path + ": cannot write: " + std::strerror(errno));
  ::fchmod(fd, 0644);  // mkstemp's 0600 is for secrets; a translation is an ordinary file
  size_t done = 0;
  bool ok = true;
  while (ok && done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  const int saved = errno;
  ok = ok && ::fsync(fd) == 0;
  ok = (::close(fd) == 0) && ok;
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = ok ? errno : saved;
    ::unlink(temp.c_str());
    throw core::Error(path + ": cannot write: " + std::strerror(error));
  }
}

}  // namespace api
