// Where `-o` writes, decided before the model loads, so a bad target fails fast and nothing that is
// not ours is ever replaced.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "cli/io/gzip_sink.h"
#include "cli/io/line_reader.h"  // LineEnding
#include "cli/io/output_file.h"

namespace cli {

// "-": stdout. A name for an open descriptor (/dev/stdout, /dev/fd/N, /proc/PID/fd/N): written through
// with O_APPEND. A regular file or a new name: AtomicOutputFile (temp file, rename; mode and, as root,
// owner kept), gzip-compressed when the name ends in ".gz", as in directory mode. A symlink: resolved (also
// when dangling), and the same at its target, so the link stays a link. A FIFO, character device or socket:
// opened without O_TRUNC and written through, in order, flushed per batch (its node is never replaced). A
// directory, a missing parent directory or an unwritable place: IoError from open(), before any work.
class OutputTarget {
 public:
  static OutputTarget open(const std::string& path);

  void write_line(std::string_view text, LineEnding ending);
  // After each batch: write-through targets pass the batch on; a file keeps it until commit().
  void flush();
  // End of output: the file appears under its name; a write-through target is flushed.
  void commit();

  bool writes_through() const { return stream_ != nullptr; }
  // The file actually written (the symlink's target for a symlink).
  const std::string& resolved_path() const { return resolved_; }

 private:
  OutputTarget() = default;
  void open_file();  // file_ (and gzip_ for a ".gz" name) at resolved_

  std::string resolved_;
  std::unique_ptr<AtomicOutputFile> file_;
  std::unique_ptr<GzipFileSink> gzip_;  // into *file_, so declared after it
  core::UniqueFd owned_fd_;
  std::unique_ptr<StdoutWriter> stream_;
};

// True for /dev/stdout, /dev/stderr, /dev/fd/N and /proc/{self,thread-self,PID}/fd/N.
bool is_descriptor_alias(const std::string& path);

// Follows symlinks in the last component of `path` (at most 40, like the kernel) and returns the
// first non-symlink name, which may not exist yet. Relative link targets are taken from the link's
// directory. Throws IoError on a loop or an unreadable link.
std::string resolve_final_symlinks(const std::string& path);

}  // namespace cli
