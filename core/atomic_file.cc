#include "core/atomic_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/temp_files.h"

namespace core {

void throw_file_error(std::string_view path, std::string_view what, int err) {
  throw Error(std::string(path) + ": " + std::string(what) + ": " + std::strerror(err));
}

std::pair<std::string, std::string> split_directory(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
    } else if (n == 0) {
      return EIO;  // no progress and no error: do not spin
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd pfd{fd, POLLOUT, 0};
      ::poll(&pfd, 1, -1);
    } else {
      return errno;
    }
  }
  return 0;
}

AtomicFile::AtomicFile(std::string path, unsigned mode, FileErrorThrower thrower)
    : path_(std::move(path)), thrower_(thrower) {
  const auto [dir, base] = split_directory(path_);
  fd_ = create_temp_file(dir, base, &temp_path_, mode);
  if (!fd_.valid()) {
    const int err = errno;
    temp_path_.clear();  // nothing of ours to remove
    fail("cannot create temporary file in " + (dir.empty() ? std::string(".") : dir), err);
  }
  signal_slot_ = register_temp_file(temp_path_);
}

void AtomicFile::discard() {
  if (committed_ || temp_path_.empty()) return;
  fd_.reset();
  ::unlink(temp_path_.c_str());
  unregister_temp_file(signal_slot_);
  signal_slot_ = -1;
  temp_path_.clear();
}

void AtomicFile::fail(std::string_view what, int err) {
  discard();
  thrower_(path_, what, err);
  throw_file_error(path_, what, err);  // a thrower that returned
}

void AtomicFile::write(std::string_view data) {
  if (const int err = write_all(fd_.get(), data)) fail("write failed", err);
}

void AtomicFile::commit() {
  if (::fsync(fd_.get()) != 0) fail("fsync failed", errno);
  if (const int err = fd_.close_checked()) fail("close failed", err);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0)
    fail("cannot rename " + temp_path_ + " into place", errno);
  committed_ = true;
  unregister_temp_file(signal_slot_);
  const std::string dir = split_directory(path_).first;
  UniqueFd dir_fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd.valid()) thrower_(path_, "cannot open directory to sync it", errno);
  // Some filesystems cannot sync directories (EINVAL); the rename itself has happened.
  if (::fsync(dir_fd.get()) != 0 && errno != EINVAL) thrower_(path_, "fsync of directory failed", errno);
}

void write_file_atomically(const std::string& path, std::string_view bytes, unsigned mode,
                           FileErrorThrower thrower) {
  AtomicFile file(path, mode, thrower);
  // The mode exactly, not narrowed by the umask: model files are read by every user.
  if (::fchmod(file.fd(), mode) != 0) file.fail("cannot set permissions", errno);
  file.write(bytes);
  file.commit();
}

}  // namespace core
