#include "cli/standard_fds.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace cli {

bool open_missing_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free number, which is `fd`: the lower ones are valid by now.
    const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened < 0) return false;
    if (opened != fd) {
      ::close(opened);
      return false;
    }
  }
  return true;
}

}  // namespace cli
