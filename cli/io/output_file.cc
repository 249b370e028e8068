#include "cli/io/output_file.h"

#include <fcntl.h>
#include <isa-l/crc64.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <mutex>
#include <set>
#include <stdexcept>
#include <utility>

#include "cli/io/io_error.h"
#include "cli/io/temp_files.h"

namespace cli {
namespace {

constexpr std::size_t kStdoutAutoFlush = std::size_t{1} << 20;

// Splits "a/b/c.txt" into "a/b" and "c.txt"; "c.txt" into "" and "c.txt"; "/c" into "/" and "c".
std::pair<std::string, std::string> split_path(const std::string& path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

void fsync_dir(const std::string& dir, const std::string& final_path) {
  core::UniqueFd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) throw_io_error(final_path, "cannot open directory to sync it", errno);
  // Some filesystems cannot sync directories (EINVAL); the rename itself has happened.
  if (::fsync(fd.get()) != 0 && errno != EINVAL)
    throw_io_error(final_path, "fsync of directory failed", errno);
}

// Stale temp files of killed runs go once per directory and process: one listing, not one per output.
void remove_stale_temp_files_once(const std::string& dir) {
  static std::mutex mutex;
  static std::set<std::string> cleaned;
  std::lock_guard<std::mutex> lock(mutex);
  if (cleaned.insert(dir).second) remove_stale_temp_files(dir);
}

}  // namespace

void append_line(std::string& out, std::string_view text, LineEnding ending) {
  std::size_t start = out.size();
  out.append(text);
  for (std::size_t i = start; i < out.size(); ++i) {
    if (out[i] == '\n') out[i] = ' ';
  }
  out.append(line_ending_chars(ending));
}

int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
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

// ---- AtomicOutputFile ----

AtomicOutputFile::AtomicOutputFile(std::string path, std::size_t buffer_size)
    : path_(std::move(path)), buffer_size_(buffer_size == 0 ? 1 : buffer_size) {
  auto [dir, base] = split_path(path_);
  if (base.empty() || base == "." || base == "..") {
    throw IoError(printable_path(path_) + ": not a file name");
  }
  remove_stale_temp_files_once(dir);
  struct stat existing;
  const bool replaces = ::stat(path_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode);
  // A replaced file's mode is set after creation (fchmod): the umask must not narrow or widen it.
  fd_ = create_temp_file(dir, base, &temp_path_, replaces ? 0600 : 0666);
  if (!fd_.valid()) {
    int err = errno;
    temp_path_.clear();  // nothing of ours to remove
    throw_io_error(path_, "cannot create temporary file in " + (dir.empty() ? "." : dir), err);
  }
  signal_slot_ = register_temp_file(temp_path_);
  if (replaces) {
    // As root, also the owner; an ordinary user cannot give files away, and keeps its own.
    if (::geteuid() == 0 && ::fchown(fd_.get(), existing.st_uid, existing.st_gid) != 0) {
      fail("cannot keep the owner of the existing file", errno);
    }
    if (::fchmod(fd_.get(), existing.st_mode & 07777) != 0)
      fail("cannot keep the mode of the existing file", errno);
  }
  buffer_.reserve(buffer_size_);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed_) return;
  fd_.reset();
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  unregister_temp_file(signal_slot_);
}

void AtomicOutputFile::fail(std::string_view what, int err) {
  failed_ = true;
  if (!committed_ && !temp_path_.empty()) {
    fd_.reset();
    ::unlink(temp_path_.c_str());
    unregister_temp_file(signal_slot_);
    temp_path_.clear();
  }
  buffer_.clear();
  throw_io_error(path_, what, err);
}

void AtomicOutputFile::flush_buffer() {
  if (buffer_.empty()) return;
  crc64_ = crc64_ecma_refl(crc64_, reinterpret_cast<const unsigned char*>(buffer_.data()), buffer_.size());
  bytes_written_ += buffer_.size();
  int err = write_all(fd_.get(), buffer_);
  buffer_.clear();
  if (err != 0) fail("write failed", err);
}

void AtomicOutputFile::write(std::string_view data) {
  if (committed_) throw std::logic_error("AtomicOutputFile::write after commit: " + path_);
  if (failed_) throw IoError(printable_path(path_) + ": write after an earlier write error");
  buffer_.append(data);
  if (buffer_.size() >= buffer_size_) flush_buffer();
}

void AtomicOutputFile::write_line(std::string_view text, LineEnding ending) {
  if (committed_) throw std::logic_error("AtomicOutputFile::write_line after commit: " + path_);
  if (failed_) throw IoError(printable_path(path_) + ": write after an earlier write error");
  append_line(buffer_, text, ending);
  if (buffer_.size() >= buffer_size_) flush_buffer();
}

void AtomicOutputFile::commit() {
  if (committed_) throw std::logic_error("AtomicOutputFile::commit twice: " + path_);
  if (failed_) throw IoError(printable_path(path_) + ": not committed: an earlier write failed");
  flush_buffer();
  if (::fsync(fd_.get()) != 0) fail("fsync failed", errno);
  if (int err = fd_.close_checked(); err != 0) fail("close failed", err);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    fail("cannot rename " + printable_path(temp_path_) + " into place", errno);
  }
  committed_ = true;
  unregister_temp_file(signal_slot_);
  fsync_dir(split_path(path_).first, path_);
}

// ---- StdoutWriter ----

StdoutWriter::StdoutWriter(int fd, std::string name, bool quiet_broken_pipe)
    : fd_(fd), name_(std::move(name)), quiet_broken_pipe_(quiet_broken_pipe) {}

StdoutWriter::~StdoutWriter() {
  if (!broken_ && !buffer_.empty()) write_all(fd_, buffer_);
}

void StdoutWriter::write(std::string_view data) {
  if (broken_) throw BrokenPipe(printable_path(name_) + ": broken pipe (the reader went away)");
  buffer_.append(data);
  if (buffer_.size() >= kStdoutAutoFlush) flush();
}

void StdoutWriter::write_line(std::string_view text, LineEnding ending) {
  if (broken_) throw BrokenPipe(printable_path(name_) + ": broken pipe (the reader went away)");
  append_line(buffer_, text, ending);
  if (buffer_.size() >= kStdoutAutoFlush) flush();
}

void StdoutWriter::flush() {
  if (broken_) throw BrokenPipe(printable_path(name_) + ": broken pipe (the reader went away)");
  if (buffer_.empty()) return;
  int err = write_all(fd_, buffer_);
  buffer_.clear();
  if (err == EPIPE && quiet_broken_pipe_) {
    broken_ = true;
    throw BrokenPipe(printable_path(name_) + ": broken pipe (the reader went away)");
  }
  if (err != 0) throw IoError(write_error_message(name_, err));
}

std::string write_error_message(std::string_view name, int err) {
  if (err == EBADF) return printable_path(name) + ": is closed: the output has nowhere to go";
  if (err == 0) return printable_path(name) + ": write failed";
  return errno_message(name, "write failed", err);
}

void ignore_sigpipe() { std::signal(SIGPIPE, SIG_IGN); }

void ensure_parent_dir(const std::string& path) {
  std::string dir = split_path(path).first;
  if (dir.empty() || dir == "/") return;
  // Create each prefix in turn; EEXIST is fine only if it really is a directory.
  for (std::size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string prefix = dir.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0777) == 0) continue;
    int err = errno;
    struct stat st;
    if (err == EEXIST && ::stat(prefix.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) continue;
      throw IoError(printable_path(prefix) + ": exists and is not a directory");
    }
    throw_io_error(prefix, "cannot create directory", err);
  }
}

}  // namespace cli
