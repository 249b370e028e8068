#include "cli/io/output_file.h"

#include <isa-l/crc64.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <mutex>
#include <set>
#include <stdexcept>
#include <utility>

#include "cli/io/io_error.h"
#include "core/temp_files.h"

namespace cli {
namespace {

constexpr std::size_t kStdoutAutoFlush = std::size_t{1} << 20;

// Stale temp files of killed runs go once per directory and process: one listing, not one per output.
void remove_stale_temp_files_once(const std::string& dir) {
  static std::mutex mutex;
  static std::set<std::string> cleaned;
  std::lock_guard<std::mutex> lock(mutex);
  if (cleaned.insert(dir).second) core::remove_stale_temp_files(dir);
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

// ---- AtomicOutputFile ----

AtomicOutputFile::AtomicOutputFile(std::string path, std::size_t buffer_size)
    : path_(std::move(path)), buffer_size_(buffer_size == 0 ? 1 : buffer_size) {
  const auto [dir, base] = core::split_directory(path_);
  if (base.empty() || base == "." || base == "..") {
    throw IoError(printable_path(path_) + ": not a file name");
  }
  remove_stale_temp_files_once(dir);
  struct stat existing;
  const bool replaces = ::stat(path_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode);
  // A replaced file's mode is set after creation (fchmod): the umask must not narrow or widen it.
  file_.emplace(path_, replaces ? 0600 : 0666, &throw_io_error);
  if (replaces) {
    // As root, also the owner; an ordinary user cannot give files away, and keeps its own.
    if (::geteuid() == 0 && ::fchown(file_->fd(), existing.st_uid, existing.st_gid) != 0) {
      fail("cannot keep the owner of the existing file", errno);
    }
    if (::fchmod(file_->fd(), existing.st_mode & 07777) != 0)
      fail("cannot keep the mode of the existing file", errno);
  }
  buffer_.reserve(buffer_size_);
}

AtomicOutputFile::~AtomicOutputFile() = default;  // core::AtomicFile removes an uncommitted temp file

const std::string& AtomicOutputFile::temp_path() const { return file_->temp_path(); }

void AtomicOutputFile::fail(std::string_view what, int err) {
  failed_ = true;
  buffer_.clear();
  file_->fail(what, err);
}

void AtomicOutputFile::flush_buffer() {
  if (buffer_.empty()) return;
  crc64_ = crc64_ecma_refl(crc64_, reinterpret_cast<const unsigned char*>(buffer_.data()), buffer_.size());
  bytes_written_ += buffer_.size();
  int err = write_all(file_->fd(), buffer_);
  buffer_.clear();
  if (err != 0) fail("write failed", err);
}

void AtomicOutputFile::write(std::string_view data) {
  if (file_->committed()) throw std::logic_error("AtomicOutputFile::write after commit: " + path_);
  if (failed_) throw IoError(printable_path(path_) + ": write after an earlier write error");
  buffer_.append(data);
  if (buffer_.size() >= buffer_size_) flush_buffer();
}

void AtomicOutputFile::write_line(std::string_view text, LineEnding ending) {
  if (file_->committed()) throw std::logic_error("AtomicOutputFile::write_line after commit: " + path_);
  if (failed_) throw IoError(printable_path(path_) + ": write after an earlier write error");
  append_line(buffer_, text, ending);
  if (buffer_.size() >= buffer_size_) flush_buffer();
}

void AtomicOutputFile::commit() {
  if (file_->committed()) throw std::logic_error("AtomicOutputFile::commit twice: " + path_);
  if (failed_) throw IoError(printable_path(path_) + ": not committed: an earlier write failed");
  flush_buffer();
  file_->commit();
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
  std::string dir = core::split_directory(path).first;
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
