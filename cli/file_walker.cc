#include "cli/file_walker.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <set>
#include <tuple>
#include <utility>

#include "cli/io_error.h"
#include "cli/utf8.h"
#include "core/error.h"
#include "core/unique_fd.h"

namespace cli {
namespace {

constexpr std::size_t kSampleBytes = 8192;

struct DirTask {
  std::string path;
  std::string relative;
  bool via_symlink;
};

struct Candidate {
  InputFile file;
  bool via_symlink;
};

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool glob_matches(const std::string& glob, const std::string& relative) {
  if (glob.empty()) return true;
  if (glob.find('/') != std::string::npos)
    return ::fnmatch(glob.c_str(), relative.c_str(), FNM_PATHNAME) == 0;
  std::size_t slash = relative.rfind('/');
  std::string base = slash == std::string::npos ? relative : relative.substr(slash + 1);
  return ::fnmatch(glob.c_str(), base.c_str(), 0) == 0;
}

// Up to kSampleBytes from the start of an open file; returns errno in *err on failure.
std::string read_sample(int fd, int* err) {
  std::string sample(kSampleBytes, '\0');
  std::size_t got = 0;
  *err = 0;
  while (got < sample.size()) {
    ssize_t n = ::read(fd, &sample[got], sample.size() - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  sample.resize(got);
  return sample;
}

bool sample_is_binary(std::string_view sample) {
  if (sample.empty()) return false;
  if (sample.find('\0') != std::string_view::npos) return true;
  std::size_t bad = count_invalid_utf8_bytes(sample, /*ignore_truncated_tail=*/true);
  for (unsigned char c : sample) {
    bool text_control =
        c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == '\b' || c == 0x1B;
    if ((c < 0x20 && !text_control) || c == 0x7F) ++bad;
  }
  return bad * 10 > sample.size() * 3;
}

// Opens without blocking (a file swapped for a FIFO after the walk's stat must not hang us).
core::UniqueFd open_regular(const std::string& path, int* err) {
  core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  *err = 0;
  if (!fd.valid()) {
    *err = errno;
  } else if (::fstat(fd.get(), &st) != 0) {
    *err = errno;
    fd.reset();
  } else if (!S_ISREG(st.st_mode)) {
    *err = EINVAL;
    fd.reset();
  }
  return fd;
}

class Walker {
 public:
  explicit Walker(WalkResult& result) : result_(result) {}

  void exclude(const struct stat& st) { visited_.insert({st.st_dev, st.st_ino}); }

  // Real directories depth-first in name order; symlinked ones afterwards, in the order met.
  std::vector<Candidate> run(const std::string& root) {
    std::vector<DirTask> stack{{root, "", false}};
    std::deque<DirTask> deferred;
    while (!stack.empty() || !deferred.empty()) {
      if (stack.empty()) {
        stack.push_back(std::move(deferred.front()));
        deferred.pop_front();
      }
      DirTask task = std::move(stack.back());
      stack.pop_back();
      std::vector<DirTask> subdirs;
      walk_dir(task, subdirs, deferred);
      for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) stack.push_back(std::move(*it));
    }
    return std::move(found_);
  }

 private:
  void warn(const std::string& path, std::string_view why) {
    result_.warnings.push_back(printable_path(path) + ": skipped: " + std::string(why));
  }
  void warn_errno(const std::string& path, std::string_view why, int err) {
    result_.warnings.push_back(errno_message(path, "skipped: " + std::string(why), err));
  }

  void walk_dir(const DirTask& task, std::vector<DirTask>& subdirs, std::deque<DirTask>& deferred) {
    core::UniqueFd fd(::open(task.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat st;
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0)
      return warn_errno(task.path, "cannot open directory", errno);
    // Seen before: a symlink loop, a second link to it, or the excluded output directory.
    if (!visited_.insert({st.st_dev, st.st_ino}).second) return;
    DIR* dir = ::fdopendir(fd.get());
    if (dir == nullptr) return warn_errno(task.path, "cannot list directory", errno);
    fd.release();  // now owned by dir
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* entry = ::readdir(dir)) {
      std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
      errno = 0;
    }
    if (errno != 0) warn_errno(task.path, "error while listing directory (some entries missed)", errno);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) add_entry(::dirfd(dir), task, name, subdirs, deferred);
    ::closedir(dir);
  }

  void add_entry(int dir_fd, const DirTask& task, const std::string& name, std::vector<DirTask>& subdirs,
                 std::deque<DirTask>& deferred) {
    std::string path = join(task.path, name);
    std::string relative = join(task.relative, name);
    struct stat st;
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return warn_errno(path, "cannot stat", errno);
    bool is_link = S_ISLNK(st.st_mode);
    if (is_link && ::fstatat(dir_fd, name.c_str(), &st, 0) != 0) {
      int err = errno;
      if (err == ENOENT) return warn(path, "dangling symlink");
      if (err == ELOOP) return warn(path, "symlink loop");
      return warn_errno(path, "cannot follow symlink", err);
    }
    bool via_symlink = task.via_symlink || is_link;
    if (S_ISDIR(st.st_mode)) {
      DirTask sub{std::move(path), std::move(relative), via_symlink};
      if (is_link) {
        deferred.push_back(std::move(sub));
      } else {
        subdirs.push_back(std::move(sub));
      }
    } else if (S_ISREG(st.st_mode)) {
      InputFile file{std::move(path), std::move(relative), st.st_dev, st.st_ino,
                     static_cast<std::uint64_t>(st.st_size)};
      found_.push_back({std::move(file), via_symlink});
    } else {
      warn(path, "not a regular file (FIFO, socket or device)");
    }
  }

  WalkResult& result_;
  std::set<std::pair<dev_t, ino_t>> visited_;
  std::vector<Candidate> found_;
};

}  // namespace

WalkResult walk_files(const std::string& root, const WalkOptions& options) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) throw_io_error(root, "cannot read input directory", errno);
  if (!S_ISDIR(st.st_mode)) throw IoError(printable_path(root) + ": not a directory");
  WalkResult result;
  Walker walker(result);
  struct stat excluded;
  if (!options.exclude_dir.empty() && ::stat(options.exclude_dir.c_str(), &excluded) == 0) {
    if (excluded.st_dev == st.st_dev && excluded.st_ino == st.st_ino) {
      throw core::UsageError(printable_path(options.exclude_dir) +
                             ": output directory is the input directory");
    }
    walker.exclude(excluded);
  }
  std::vector<Candidate> found = walker.run(root);

  found.erase(
      std::remove_if(found.begin(), found.end(),
                     [&](const Candidate& c) { return !glob_matches(options.glob, c.file.relative); }),
      found.end());
  // One entry per inode: the best name sorts first within its (dev, ino) group.
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.file.dev, a.file.ino, a.via_symlink, a.file.relative) <
           std::tie(b.file.dev, b.file.ino, b.via_symlink, b.file.relative);
  });
  found.erase(std::unique(found.begin(), found.end(),
                          [](const Candidate& a, const Candidate& b) {
                            return a.file.dev == b.file.dev && a.file.ino == b.file.ino;
                          }),
              found.end());
  std::sort(found.begin(), found.end(),
            [](const Candidate& a, const Candidate& b) { return a.file.relative < b.file.relative; });

  for (Candidate& c : found) {
    int err = 0;
    core::UniqueFd fd = open_regular(c.file.path, &err);
    if (!fd.valid()) {
      result.warnings.push_back(errno_message(c.file.path, "skipped: cannot open", err));
      continue;
    }
    const bool gzip = c.file.path.size() > 3 && c.file.path.compare(c.file.path.size() - 3, 3, ".gz") == 0;
    if (options.skip_binary && !gzip) {  // a .gz file is text once LineReader decompresses it
      std::string sample = read_sample(fd.get(), &err);
      if (err != 0) {
        result.warnings.push_back(errno_message(c.file.path, "skipped: cannot read", err));
        continue;
      }
      if (sample_is_binary(sample)) {
        result.warnings.push_back(printable_path(c.file.path) + ": skipped: looks like a binary file");
        continue;
      }
    }
    result.files.push_back(std::move(c.file));
  }
  return result;
}

namespace {

// Absolute, symlink-free form of `path`; a missing tail is appended literally ("." and ".." applied).
std::string resolve_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.empty() ? "." : path.c_str(), buf) != nullptr) return buf;
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  if (trimmed == "." || trimmed == "..") return trimmed;  // no usable cwd: cannot do better
  std::size_t slash = trimmed.rfind('/');
  if (slash == std::string::npos) return resolve_path(".") + "/" + trimmed;  // a missing name in cwd
  if (trimmed == "/") return "/";
  std::string parent = slash == 0 ? "/" : trimmed.substr(0, slash);
  std::string base = trimmed.substr(slash + 1);
  std::string resolved = resolve_path(parent);
  if (base.empty() || base == ".") return resolved;
  if (base == "..") {
    std::size_t up = resolved.rfind('/');
    return up == 0 || up == std::string::npos ? "/" : resolved.substr(0, up);
  }
  return resolved == "/" ? "/" + base : resolved + "/" + base;
}

}  // namespace

bool path_is_within(const std::string& path, const std::string& dir) {
  std::string p = resolve_path(path), d = resolve_path(dir);
  if (d == "/") return true;
  return p == d || (p.size() > d.size() && p.compare(0, d.size(), d) == 0 && p[d.size()] == '/');
}

bool is_probably_binary(const std::string& path) {
  int err = 0;
  core::UniqueFd fd = open_regular(path, &err);
  if (!fd.valid()) throw_io_error(path, "cannot open", err);
  std::string sample = read_sample(fd.get(), &err);
  if (err != 0) throw_io_error(path, "read failed", err);
  return sample_is_binary(sample);
}

bool output_is_complete(const std::string& dst) {
  struct stat st;
  if (::stat(dst.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    throw_io_error(dst, "cannot check existing output", errno);
  }
  if (!S_ISREG(st.st_mode))
    throw IoError(printable_path(dst) + ": output path exists but is not a regular file");
  return true;
}

}  // namespace cli
