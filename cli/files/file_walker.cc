#include "cli/files/file_walker.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <utility>

#include "cli/files/glob_match.h"
#include "cli/files/manifest.h"
#include "cli/io/input_decoder.h"
#include "cli/io/io_error.h"
#include "core/error.h"
#include "core/regular_file.h"
#include "core/unique_fd.h"
#include "core/utf8_text.h"

namespace cli {
namespace {

constexpr int kMaxDepth = 64;

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Our manifest, its lock and the temp file it is compacted through: in an input tree (the output of an
// earlier run) they are records, not text.
bool is_own_file_name(const std::string& name) {
  const std::string_view view = name;
  const std::size_t n = kManifestPrefix.size();
  return view.substr(0, n) == kManifestPrefix ||
         (view.size() > 1 && view[0] == '.' && view.substr(1, n) == kManifestPrefix);
}

// Up to kEncodingSampleBytes from the start of an open file; returns errno in *err on failure.
std::string read_sample(int fd, int* err) {
  std::string sample(kEncodingSampleBytes, '\0');
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

}  // namespace

namespace {

// Depth-first in name order. Loops are cut by the chain of directories (device, inode) from the root to
// the current one, so an in-tree symlink to a directory is walked under its own name like any other.
class Walker {
 public:
  Walker(WalkResult& result, std::string real_root) : result_(result), real_root_(std::move(real_root)) {}

  void exclude(const struct stat& st) { excluded_ = {st.st_dev, st.st_ino}; }

  void walk(const std::string& path, const std::string& relative, int depth) {
    core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat st;
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) return warn_errno(path, "cannot open directory", errno);
    const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
    if (id == excluded_) return warn(path, "the output directory (its files are not input)");
    if (!chain_.insert(id).second) {
      ++result_.links_skipped;
      return warn(path, "symlink loop (leads back to a directory it is inside)");
    }
    if (depth > kMaxDepth) {
      ++result_.too_deep;
      chain_.erase(id);
      return warn(path, "more than " + std::to_string(kMaxDepth) + " directories deep");
    }
    DIR* dir = ::fdopendir(fd.get());
    if (dir == nullptr) {
      chain_.erase(id);
      return warn_errno(path, "cannot list directory", errno);
    }
    fd.release();  // now owned by dir
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* entry = ::readdir(dir)) {
      std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
      errno = 0;
    }
    if (errno != 0) warn_errno(path, "error while listing directory (some entries missed)", errno);
    names.erase(std::remove_if(names.begin(), names.end(), is_own_file_name), names.end());
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) add_entry(::dirfd(dir), path, relative, name, depth);
    ::closedir(dir);
    chain_.erase(id);
  }

 private:
  void warn(const std::string& path, std::string_view why) {
    result_.warnings.push_back(printable_path(path) + ": skipped: " + std::string(why));
  }
  // An entry that exists but cannot be read: a failure, not a warning (its output would be missing).
  void warn_errno(const std::string& path, std::string_view why, int err) {
    result_.failures.push_back(errno_message(path, why, err));
  }

  void add_entry(int dir_fd, const std::string& dir_path, const std::string& dir_relative,
                 const std::string& name, int depth) {
    std::string path = join(dir_path, name);
    std::string relative = join(dir_relative, name);
    struct stat st;
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return warn_errno(path, "cannot stat", errno);
    if (S_ISLNK(st.st_mode)) {
      if (::fstatat(dir_fd, name.c_str(), &st, 0) != 0) {
        int err = errno;
        if (err == ENOENT) return warn(path, "dangling symlink");
        if (err == ELOOP) {
          ++result_.links_skipped;
          return warn(path, "symlink loop");
        }
        return warn_errno(path, "cannot follow symlink", err);
      }
      // Only links that stay inside the tree: the tree is what the user asked us to translate.
      char resolved[PATH_MAX];
      if (::realpath(path.c_str(), resolved) == nullptr)
        return warn_errno(path, "cannot follow symlink", errno);
      const std::string target = resolved;
      if (!(target == real_root_ ||
            (target.size() > real_root_.size() && target.compare(0, real_root_.size(), real_root_) == 0 &&
             (real_root_ == "/" || target[real_root_.size()] == '/')))) {
        ++result_.links_skipped;
        return warn(path, "symlink leads outside the input directory (to " + printable_path(target) + ")");
      }
    }
    if (S_ISDIR(st.st_mode)) {
      walk(path, relative, depth + 1);
    } else if (S_ISREG(st.st_mode)) {
      result_.files.push_back({std::move(path), std::move(relative), st.st_dev, st.st_ino,
                               static_cast<std::uint64_t>(st.st_size)});
    } else {
      warn(path, "not a regular file (FIFO, socket or device)");
    }
  }

  WalkResult& result_;
  std::string real_root_;
  std::pair<dev_t, ino_t> excluded_{0, 0};
  std::set<std::pair<dev_t, ino_t>> chain_;
};

}  // namespace

WalkResult walk_files(const std::string& root, const WalkOptions& options) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) throw_io_error(root, "cannot read input directory", errno);
  if (!S_ISDIR(st.st_mode)) throw IoError(printable_path(root) + ": not a directory");
  char real_root[PATH_MAX];
  if (::realpath(root.c_str(), real_root) == nullptr)
    throw_io_error(root, "cannot resolve input directory", errno);
  WalkResult listed;
  Walker walker(listed, real_root);
  struct stat excluded;
  if (!options.exclude_dir.empty() && ::stat(options.exclude_dir.c_str(), &excluded) == 0) {
    if (excluded.st_dev == st.st_dev && excluded.st_ino == st.st_ino) {
      throw core::UsageError(printable_path(options.exclude_dir) +
                             ": output directory is the input directory");
    }
    walker.exclude(excluded);
  }
  walker.walk(root, "", 0);

  WalkResult result;
  result.warnings = std::move(listed.warnings);
  result.failures = std::move(listed.failures);
  result.links_skipped = listed.links_skipped;
  result.too_deep = listed.too_deep;
  std::sort(listed.files.begin(), listed.files.end(),
            [](const InputFile& a, const InputFile& b) { return a.relative < b.relative; });
  for (InputFile& file : listed.files) {
    if (!glob_matches(options.glob, file.relative)) {
      if (options.list_others) result.others.push_back(std::move(file));
      continue;
    }
    int err = 0;
    core::UniqueFd fd = core::try_open_regular_file(file.path, &err);
    if (!fd.valid()) {
      result.failures.push_back(errno_message(file.path, "cannot open for reading", err));
      continue;
    }
    if (options.skip_binary && !(options.binary_document && options.binary_document(file.path))) {
      std::string sample = read_sample(fd.get(), &err);
      if (err != 0) {
        result.failures.push_back(errno_message(file.path, "read failed", err));
        continue;
      }
      if (detect_text_encoding(sample) == InputEncoding::kBinary) {
        if (options.list_others) {
          result.others.push_back(std::move(file));
          continue;
        }
        result.warnings.push_back(printable_path(file.path) + ": skipped: looks like a binary file");
        continue;
      }
    }
    result.files.push_back(std::move(file));
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
  core::UniqueFd fd = core::try_open_regular_file(path, &err);
  if (!fd.valid()) throw_io_error(path, "cannot open", err);
  std::string sample = read_sample(fd.get(), &err);
  if (err != 0) throw_io_error(path, "read failed", err);
  return detect_text_encoding(sample) == InputEncoding::kBinary;
}

void check_output_path(const std::string& output_dir, const std::string& relative) {
  for (std::size_t end = relative.find('/');; end = relative.find('/', end + 1)) {
    const bool last = end == std::string::npos;
    const std::string path = output_dir + "/" + relative.substr(0, last ? relative.size() : end);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return;
      throw_io_error(path, "cannot check output path", errno);
    }
    if (S_ISLNK(st.st_mode)) {
      throw IoError(
          printable_path(path) +
          ": is a symlink in the output directory; not followed (outputs stay inside --output-dir)");
    }
    if (last) return;
    if (!S_ISDIR(st.st_mode)) throw IoError(printable_path(path) + ": exists and is not a directory");
  }
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
