// Output sinks: an all-or-nothing file (temp file + rename) and a stdout writer that knows EPIPE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli/io/line_reader.h"  // LineEnding
#include "core/atomic_file.h"

namespace cli {

// Writes `text` then `ending`, with any '\n' inside `text` replaced by a space: one input line must
// stay exactly one output line, whatever a model emits.
void append_line(std::string& out, std::string_view text, LineEnding ending);

// A file that appears under its final name complete or not at all: core::AtomicFile (temp file
// ".NAME.tmp.HOST.PID.XXXXXX" in the same directory, removed on SIGINT/SIGTERM/SIGHUP; fsync, rename,
// fsync of the directory) with a write buffer, a running CRC and the CLI's errors. Destroyed
// uncommitted (error, exception), it removes the temp file. The first output in a directory removes
// the stale temp files of killed runs there. New files get mode
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
  const std::string& temp_path() const;
  // What was written so far, so a record can name this exact output (cli/files/manifest.h).
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t content_crc64() const { return crc64_; }  // crc64 (ECMA-182, reflected)
  bool committed() const { return file_->committed(); }

 private:
  void flush_buffer();
  [[noreturn]] void fail(std::string_view what, int err);

  std::string path_;
  std::optional<core::AtomicFile> file_;  // created once the name is checked and stale files removed
  std::string buffer_;
  std::size_t buffer_size_;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t crc64_ = 0;
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

using core::write_all;  // all of the data or an errno (core/atomic_file.h)

}  // namespace cli
