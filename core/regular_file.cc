#include "core/regular_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace core {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw Error(path + ": " + problem);
}

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

std::string mebibytes(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

UniqueFd try_open_regular_file(const std::string& path, int* err, struct stat* st_out) {
  struct stat st {};
  *err = 0;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
    *err = errno;
    return UniqueFd();
  }
  if (st_out) *st_out = st;
  if (!S_ISREG(st.st_mode)) {
    *err = EINVAL;
    return UniqueFd();
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    *err = errno;
    return UniqueFd();
  }
  return fd;
}

UniqueFd open_regular_file(const std::string& path, std::string_view what, struct stat* st_out) {
  struct stat st {};
  int err = 0;
  UniqueFd fd = try_open_regular_file(path, &err, &st);
  if (!fd.valid()) {
    if (err == EINVAL && st.st_mode != 0 && !S_ISREG(st.st_mode))
      fail(path, std::string(what) + " is " + file_kind(st.st_mode) + ", not a regular file");
    fail(path, "cannot open " + std::string(what) + ": " + std::strerror(err));
  }
  if (st_out) *st_out = st;
  return fd;
}

std::string read_regular_file(const std::string& path, std::string_view what, uint64_t max_bytes) {
  struct stat st;
  UniqueFd fd = open_regular_file(path, what, &st);
  const auto too_large = [&] {
    fail(path, std::string(what) + " is larger than the " + mebibytes(max_bytes) + " limit");
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) too_large();
  std::string data;
  data.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  for (;;) {
    if (done == data.size()) {
      if (data.size() >= max_bytes + 1) too_large();
      data.resize(std::min<uint64_t>(max_bytes + 1, data.size() + (64u << 10)));
    }
    const ssize_t got = ::read(fd.get(), &data[done], data.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(path, "cannot read " + std::string(what) + ": " + std::strerror(errno));
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  data.resize(done);
  return data;
}

std::string regular_file_head(const std::string& path, size_t n) {
  int err = 0;
  const UniqueFd fd = try_open_regular_file(path, &err);
  std::string head(n, '\0');
  size_t done = 0;
  while (fd.valid() && done < n) {
    const ssize_t got = ::read(fd.get(), &head[done], n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  head.resize(done);
  return head;
}

}  // namespace core
