#include "cli/io/output_target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "cli/io/io_error.h"

namespace cli {
namespace {

std::string parent_dir(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The checks open() of a temp file would make, made now with messages in our words.
void check_new_file_place(const std::string& path) {
  const std::string dir = parent_dir(path);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) throw_io_error(path, "cannot write here: directory " + dir, errno);
  if (!S_ISDIR(st.st_mode))
    throw IoError(printable_path(path) + ": cannot write here: " + dir + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw_io_error(path, "cannot write into " + dir, errno);
}

}  // namespace

bool is_descriptor_alias(const std::string& path) {
  if (path == "/dev/stdout" || path == "/dev/stderr" || path.rfind("/dev/fd/", 0) == 0) return true;
  if (path.rfind("/proc/", 0) != 0) return false;
  const std::size_t fd = path.find("/fd/", 6);
  if (fd == std::string::npos) return false;
  const std::string process = path.substr(6, fd - 6);
  return process == "self" || process == "thread-self" ||
         (!process.empty() && process.find_first_not_of("0123456789") == std::string::npos);
}

std::string resolve_final_symlinks(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::vector<char> buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 4095) + 1);
    const ssize_t n = ::readlink(current.c_str(), buf.data(), buf.size());
    if (n < 0) throw_io_error(current, "cannot read symlink", errno);
    std::string target(buf.data(), static_cast<std::size_t>(n));
    if (target.empty()) throw IoError(printable_path(current) + ": empty symlink");
    current = target[0] == '/' ? target : parent_dir(current) + "/" + target;
  }
  throw IoError(printable_path(path) + ": too many levels of symbolic links");
}

OutputTarget OutputTarget::open(const std::string& path) {
  OutputTarget t;
  if (path == "-") {
    t.resolved_ = "<stdout>";
    t.stream_ = std::make_unique<StdoutWriter>(1, "<stdout>");
    return t;
  }
  if (is_descriptor_alias(path)) {
    // Another name for an open descriptor (`-o /dev/stdout >> log`): what it points at is not ours to
    // replace, so write through; O_APPEND keeps an appending redirection's earlier content.
    t.resolved_ = path;
    t.owned_fd_.reset(::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC));
    if (!t.owned_fd_.valid()) throw_io_error(path, "cannot open for writing", errno);
    t.stream_ = std::make_unique<StdoutWriter>(t.owned_fd_.get(), path, /*quiet_broken_pipe=*/false);
    return t;
  }
  t.resolved_ = resolve_final_symlinks(path);
  struct stat st;
  if (::stat(t.resolved_.c_str(), &st) != 0) {
    if (errno != ENOENT) throw_io_error(path, "cannot check the output path", errno);
    check_new_file_place(t.resolved_);
    t.open_file();
    return t;
  }
  if (S_ISDIR(st.st_mode)) {
    throw IoError(printable_path(path) + ": is a directory (-o takes a file; for trees use --output-dir)");
  }
  if (S_ISREG(st.st_mode)) {
    check_new_file_place(t.resolved_);
    t.open_file();
    return t;
  }
  // FIFO, device, socket: the node is someone else's; write into it, never replace it.
  t.owned_fd_.reset(::open(t.resolved_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC));
  if (!t.owned_fd_.valid()) throw_io_error(path, "cannot open for writing", errno);
  t.stream_ = std::make_unique<StdoutWriter>(t.owned_fd_.get(), path, /*quiet_broken_pipe=*/false);
  return t;
}

void OutputTarget::open_file() {
  file_ = std::make_unique<AtomicOutputFile>(resolved_);
  if (is_gzip_path(resolved_)) gzip_ = std::make_unique<GzipFileSink>(*file_);
}

void OutputTarget::write_line(std::string_view text, LineEnding ending) {
  if (gzip_) {
    gzip_->write_line(text, ending);
  } else if (file_) {
    file_->write_line(text, ending);
  } else {
    stream_->write_line(text, ending);
  }
}

void OutputTarget::flush() {
  if (stream_) stream_->flush();
}

void OutputTarget::commit() {
  if (gzip_) gzip_->finish();
  if (file_) {
    file_->commit();
  } else {
    stream_->flush();
  }
}

}  // namespace cli
