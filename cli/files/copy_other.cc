#include "cli/files/copy_other.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "cli/io/io_error.h"
#include "cli/io/output_file.h"
#include "core/regular_file.h"
#include "core/unique_fd.h"

namespace cli {
namespace {

constexpr std::size_t kCopyChunk = 64 * 1024;

// Reads up to kCopyChunk bytes, retrying on EINTR; "" at the end.
std::string read_chunk(int fd, const std::string& path) {
  std::string chunk(kCopyChunk, '\0');
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n >= 0) {
      chunk.resize(static_cast<std::size_t>(n));
      return chunk;
    }
    if (errno != EINTR) throw_io_error(path, "read failed", errno);
  }
}

// True when the file at `dst` holds exactly the bytes still to be read from `source` (rewound after).
bool same_bytes(int source, const std::string& source_path, const std::string& dst) {
  int err = 0;
  core::UniqueFd other = core::try_open_regular_file(dst, &err);
  if (!other.valid()) return false;
  bool same = true;
  for (;;) {
    const std::string a = read_chunk(source, source_path), b = read_chunk(other.get(), dst);
    if (a != b) {
      same = false;
      break;
    }
    if (a.empty()) break;
  }
  if (::lseek(source, 0, SEEK_SET) != 0) throw_io_error(source_path, "cannot rewind", errno);
  return same;
}

}  // namespace

CopyOutcome copy_unchanged(const InputFile& file, const std::string& output_dir, std::string* why) {
  struct stat link;
  if (::lstat(file.path.c_str(), &link) != 0) throw_io_error(file.path, "cannot stat", errno);
  if (S_ISLNK(link.st_mode)) {
    *why = "a symlink: not followed, not copied";
    return CopyOutcome::kSkipped;
  }
  int err = 0;
  struct stat st;
  core::UniqueFd source = core::try_open_regular_file(file.path, &err, &st);
  if (!source.valid()) {
    if (err == EINVAL) {
      *why = "not a regular file (FIFO, socket or device): not copied";
      return CopyOutcome::kSkipped;
    }
    throw_io_error(file.path, "cannot open for reading", err);
  }
  check_output_path(output_dir, file.relative);
  const std::string dst = output_dir + "/" + file.relative;
  struct stat there;
  if (::stat(dst.c_str(), &there) == 0) {
    if (there.st_dev == st.st_dev && there.st_ino == st.st_ino) {
      *why = "the output path is the input file itself: not copied";
      return CopyOutcome::kSkipped;
    }
    if (S_ISREG(there.st_mode) && there.st_size == st.st_size && same_bytes(source.get(), file.path, dst)) {
      if ((there.st_mode & 07777) != (st.st_mode & 07777) && ::chmod(dst.c_str(), st.st_mode & 07777) != 0)
        throw_io_error(dst, "cannot set mode", errno);
      return CopyOutcome::kAlreadyThere;
    }
  }
  ensure_parent_dir(dst);
  AtomicOutputFile out(dst);
  for (std::string chunk = read_chunk(source.get(), file.path); !chunk.empty();
       chunk = read_chunk(source.get(), file.path))
    out.write(chunk);
  out.commit();
  // After the rename: a replaced file would otherwise keep the old file's mode.
  if (::chmod(dst.c_str(), st.st_mode & 07777) != 0) throw_io_error(dst, "cannot set mode", errno);
  return CopyOutcome::kCopied;
}

}  // namespace cli
