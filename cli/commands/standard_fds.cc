#include "cli/commands/standard_fds.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace cli {

bool open_missing_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free number, which is `fd`: the lower ones are valid by now. Stdout
    // is opened read-only, so that writing output to it fails (EBADF) rather than vanish.
    const int opened = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (opened < 0) return false;
    if (opened != fd) {
      ::close(opened);
      return false;
    }
  }
  return true;
}

}  // namespace cli
