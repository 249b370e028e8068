// Output sinks: an all-or-nothing file (temp file + rename) and a stdout writer that knows EPIPE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cli/io/line_reader.h"  // LineEnding
#include "core/unique_fd.h"

namespace cli {

// Writes `text` then `ending`, with any '\n' inside `text` replaced by a space: one input line must
// stay exactly one output line, whatever a model emits.
void append_line(std::string& out, std::string_view text, LineEnding ending);

// A file that appears under its final name complete or not at all. Data goes to a fresh temp file
// in the same directory (create_temp_file: ".NAME.tmp.HOST.PID.XXXXXX", registered for removal on
// SIGINT/SIGTERM/SIGHUP); commit() fsyncs it and renames it onto NAME (replacing an existing file),
// then fsyncs the directory. Destroyed uncommitted (error, exception), it removes the temp file. The
// first output in a directory removes the stale temp files of killed runs there. New files get mode
// 0666 & ~umask; a replaced file keeps its mode and, as root, its owner. `path` must not be a
// symlink (OutputTarget resolves them). Errors throw IoError naming the final path.
class AtomicOutputFile {
 public:
  // Creates the temp file now, so an unwritable directory fails before any work is done.
  explicit AtomicOutputFile(std::string path, std::size_t buffer_size = 64 * 1024);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  void write(std::string_view data);
  void write_line(std::string_view text, LineEnding ending);
  // After a failed write, commit() refuses (the data is incomplete) and the temp file is removed.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }
  // What was written so far, so a record can name this exact output (cli/files/manifest.h).
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t content_crc64() const { return crc64_; }  // crc64 (ECMA-182, reflected)
  bool committed() const { return committed_; }

 private:
  void flush_buffer();
  [[noreturn]] void fail(std::string_view what, int err);

  std::string path_;
  std::string temp_path_;
  core::UniqueFd fd_;
  std::string buffer_;
  std::size_t buffer_size_;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t crc64_ = 0;
  int signal_slot_ = -1;
  bool committed_ = false;
  bool failed_ = false;
};

// Buffered writer over stdout (or any fd). Call flush() after each batch so downstream sees results
// promptly; the buffer also flushes itself past 1 MiB. With quiet_broken_pipe, a write failing with
// EPIPE throws BrokenPipe (and so do all later calls); other failures (ENOSPC, EIO, and EPIPE on a
// named FIFO) throw IoError naming `name`.
class StdoutWriter {
 public:
  explicit StdoutWriter(int fd = 1, std::string name = "<stdout>", bool quiet_broken_pipe = true);
  // Best-effort flush with errors ignored: call flush() yourself to learn about them.
  ~StdoutWriter();
  StdoutWriter(const StdoutWriter&) = delete;
  StdoutWriter& operator=(const StdoutWriter&) = delete;

  void write(std::string_view data);
  void write_line(std::string_view text, LineEnding ending);
  void flush();

 private:
  int fd_;
  std::string name_;
  bool quiet_broken_pipe_;
  std::string buffer_;
  bool broken_ = false;
};

// "NAME: write failed: REASON" for errno `err` (0: unknown); a descriptor that is closed (EBADF: the
// read-only stand-in open_missing_standard_fds() puts there) says so.
std::string write_error_message(std::string_view name, int err);

// main calls this first: SIGPIPE would kill the process before StdoutWriter can see EPIPE.
void ignore_sigpipe();

// mkdir -p of the directory part of `path` (mode 0777 & ~umask). Throws IoError naming the
// directory that could not be created, or a component that exists but is not a directory.
void ensure_parent_dir(const std::string& path);

// Writes all of `data`, retrying on EINTR, partial writes and EAGAIN (non-blocking fds).
// Returns 0 or the errno of the failure; the caller decides which exception that is.
int write_all(int fd, std::string_view data);

}  // namespace cli
