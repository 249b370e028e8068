// Files that appear under their final name complete or not at all: the one way nmt writes a file (model
// directories, translated outputs, manifests). Data goes to a fresh temp file in the same directory
// (core/temp_files.h: O_EXCL|O_NOFOLLOW, so a planted symlink is never followed, and registered for
// removal on a signal); commit() fsyncs it, renames it onto the final name and fsyncs the directory.
// Destroyed or discarded uncommitted, the temp file is removed.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "core/unique_fd.h"

namespace core {

// Throws the caller's error for a failure: `path` is the final name, `what` the step, `err` an errno.
// It must not return; core::throw_file_error is the default, the CLI passes its own (IoError, NoSpace).
using FileErrorThrower = void (*)(std::string_view path, std::string_view what, int err);

// Throws core::Error("PATH: WHAT: strerror(err)").
[[noreturn]] void throw_file_error(std::string_view path, std::string_view what, int err);

// "a/b/c.txt" -> {"a/b", "c.txt"}; "c.txt" -> {"", "c.txt"}; "/c" -> {"/", "c"}.
std::pair<std::string, std::string> split_directory(const std::string& path);

// Writes all of `data`, retrying on EINTR, partial writes and EAGAIN (non-blocking fds).
// Returns 0 or the errno of the failure; the caller decides which exception that is.
int write_all(int fd, std::string_view data);

class AtomicFile {
 public:
  // Creates the temp file now with `mode` & ~umask, so an unwritable directory fails before any work.
  AtomicFile(std::string path, unsigned mode, FileErrorThrower thrower = throw_file_error);
  ~AtomicFile() { discard(); }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view data);
  void commit();
  // Removes the temp file now (nothing after a failure may stay behind); a no-op once committed.
  void discard();
  // discard(), then the thrower's error for `what` and `err`.
  [[noreturn]] void fail(std::string_view what, int err);

  int fd() const { return fd_.get(); }  // for fchmod/fchown before commit()
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }
  bool committed() const { return committed_; }

 private:
  std::string path_;
  std::string temp_path_;
  UniqueFd fd_;
  FileErrorThrower thrower_;
  int signal_slot_ = -1;
  bool committed_ = false;
};

// `bytes` as the whole of `path`, atomically, with exactly `mode` (whatever the umask).
void write_file_atomically(const std::string& path, std::string_view bytes, unsigned mode = 0644,
                           FileErrorThrower thrower = throw_file_error);

}  // namespace core
