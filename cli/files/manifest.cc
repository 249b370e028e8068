#include "cli/files/manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <isa-l/crc64.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <functional>

#include "cli/io/io_error.h"
#include "cli/io/output_file.h"
#include "core/ends_with.h"
#include "core/utf8_text.h"
#include "models/shortlist.h"
#include "nlohmann/json.hpp"

namespace cli {
namespace {

constexpr std::string_view kHeader = "{\"nmt_manifest\":2}";
constexpr std::string_view kFileKey = "{\"file\":\"";

std::uint64_t crc64_of_fd(int fd, const std::string& path, std::uint64_t crc) {
  std::vector<unsigned char> buf(1 << 20);
  for (off_t offset = 0;;) {
    const ssize_t n = ::pread(fd, buf.data(), buf.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_io_error(path, "read failed", errno);
    if (n == 0) return crc;
    crc = crc64_ecma_refl(crc, buf.data(), static_cast<std::uint64_t>(n));
    offset += n;
  }
}

// Calls `line` for each line of `fd` (without its '\n'; `complete` false for a last line with none),
// holding one line at a time. Throws IoError naming `path`.
void for_each_line(int fd, const std::string& path,
                   const std::function<void(std::string_view, bool complete)>& line) {
  std::string pending;
  std::vector<char> buf(1 << 16);
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_io_error(path, "read failed", errno);
    if (n == 0) break;
    std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = chunk.find('\n')) != std::string_view::npos; chunk.remove_prefix(nl + 1)) {
      if (pending.empty()) {
        line(chunk.substr(0, nl), true);
      } else {
        pending.append(chunk.substr(0, nl));
        line(pending, true);
        pending.clear();
      }
    }
    pending.append(chunk);
  }
  if (!pending.empty()) line(pending, false);
}

// The escaped name a line is about, or empty for a line that is not an entry.
std::string_view line_file(std::string_view line) {
  if (line.substr(0, kFileKey.size()) != kFileKey) return {};
  line.remove_prefix(kFileKey.size());
  const std::size_t quote = line.find('"');  // escaped names hold no quote
  return quote == std::string_view::npos ? std::string_view() : line.substr(0, quote);
}

std::string entry_line(const std::string& escaped, const ManifestEntry& e) {
  return std::string(kFileKey) + escaped + "\",\"size\":" + std::to_string(e.size) +
         ",\"mtime_ns\":" + std::to_string(e.mtime_ns) +
         ",\"crc64\":" + nlohmann::json(e.content_hash).dump() +
         ",\"model\":" + nlohmann::json(e.model).dump() + ",\"options\":" + nlohmann::json(e.options).dump() +
         ",\"output_size\":" + std::to_string(e.output_size) +
         ",\"output_crc64\":" + nlohmann::json(e.output_hash).dump() + "}\n";
}

ManifestEntry parse_entry(std::string_view line) {
  const nlohmann::json j = nlohmann::json::parse(line);
  ManifestEntry e;
  e.size = j.at("size").get<std::uint64_t>();
  e.mtime_ns = j.at("mtime_ns").get<std::int64_t>();
  e.content_hash = j.at("crc64").get<std::string>();
  e.model = j.at("model").get<std::string>();
  e.options = j.at("options").get<std::string>();
  e.output_size = j.at("output_size").get<std::uint64_t>();
  e.output_hash = j.at("output_crc64").get<std::string>();
  return e;
}

std::vector<std::string> manifest_files(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name.rfind(kManifestPrefix, 0) == 0 && name.size() > 5 &&
        name.compare(name.size() - 5, 5, ".json") == 0)
      names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::string hex64(std::uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string escape_file_name(std::string_view name) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size());
  const auto* p = reinterpret_cast<const unsigned char*>(name.data());
  for (std::size_t i = 0; i < name.size();) {
    const core::Utf8Step step = core::utf8_step(p + i, name.size() - i);
    const unsigned char c = p[i];
    if (step.valid && step.length > 1) {
      out.append(name.substr(i, step.length));
      i += step.length;
      continue;
    }
    if (!step.valid || c < 0x20 || c == 0x7F || c == '%' || c == '"' || c == '\\') {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

std::string Manifest::file_name(int shard_index, int shard_count) {
  if (shard_count <= 1) return std::string(kManifestPrefix) + ".json";
  return std::string(kManifestPrefix) + "." + std::to_string(shard_index) + "-of-" +
         std::to_string(shard_count) + ".json";
}

Manifest::Manifest(std::string output_dir, std::string own_name, const std::vector<std::string>& wanted)
    : output_dir_(std::move(output_dir)), own_name_(std::move(own_name)) {
  lock_path_ = output_dir_ + "/" + own_name_ + ".lock";
  lock_own_manifest();
  std::unordered_set<std::string> escaped;
  for (const std::string& name : wanted) escaped.insert(escape_file_name(name));
  read_manifest(own_name_, true, escaped);
  for (const std::string& name : manifest_files(output_dir_)) {
    if (name != own_name_) read_manifest(name, false, escaped);
  }
}

// The lock file exists only while a run holds it: the holder removes it on the way out, so a run that
// locked a file another run has just removed sees another inode at the path and locks afresh.
void Manifest::lock_own_manifest() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    lock_ = core::UniqueFd(::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666));
    if (!lock_.valid() && errno != EACCES && errno != EROFS)
      throw_io_error(lock_path_, "cannot create lock file", errno);
    // An output directory we cannot write needs no lock: nothing can be written there (a run with
    // something to do fails at its first output).
    if (!lock_.valid()) return;
    if (::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) {
        throw IoError(printable_path(output_dir_) + ": another nmt run is writing " + own_name_ +
                      " here (same --output-dir and --shard); wait for it to end");
      }
      warnings_.push_back(errno_message(lock_path_, "cannot lock (runs at once are not detected)", errno));
      lock_.reset();
      return;
    }
    struct stat held, at_path;
    if (::fstat(lock_.get(), &held) == 0 && ::lstat(lock_path_.c_str(), &at_path) == 0 &&
        held.st_dev == at_path.st_dev && held.st_ino == at_path.st_ino)
      return;
  }
  throw IoError(printable_path(lock_path_) + ": the lock file keeps being replaced; is another run ending?");
}

Manifest::~Manifest() {
  if (lock_.valid()) ::unlink(lock_path_.c_str());  // still locked: no run can be holding this file
}

void Manifest::read_manifest(const std::string& name, bool own,
                             const std::unordered_set<std::string>& wanted) {
  const std::string path = output_dir_ + "/" + name;
  core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid() && errno == ENOENT && own) return;
  std::unordered_map<std::string, ManifestEntry> latest;  // a later line for a file wins
  bool header = false, old_format = false;
  std::size_t damaged = 0;
  try {
    if (!fd.valid()) throw_io_error(path, "cannot open", errno);
    for_each_line(fd.get(), path, [&](std::string_view line, bool complete) {
      if (!header) {
        header = line == kHeader;
        old_format = !header;
        return;
      }
      if (old_format) return;
      const std::string_view file = line_file(line);
      if (file.empty() || !complete) {
        damaged += complete;  // the last line of a journal being written is not damage
        return;
      }
      if (wanted.count(std::string(file)) == 0) return;
      try {
        latest[std::string(file)] = parse_entry(line);
      } catch (const std::exception&) {
        ++damaged;
      }
    });
  } catch (const IoError& e) {
    warnings_.push_back(std::string(e.what()) + " (resume manifest ignored: its files are redone)");
    return;
  }
  if (!header) {
    warnings_.push_back(printable_path(path) +
                        ": not a resume manifest of this nmt, ignored (its files are redone)");
    own_replaced_ = own_replaced_ || own;
    return;
  }
  if (damaged > 0) {
    warnings_.push_back(printable_path(path) + ": " + std::to_string(damaged) +
                        " damaged line(s) ignored (those files are redone)");
  }
  for (auto& [file, entry] : latest) entries_[file].push_back(std::move(entry));
}

void Manifest::open_journal() {
  const std::string path = output_dir_ + "/" + own_name_;
  struct stat st;
  if (own_replaced_ || ::lstat(path.c_str(), &st) != 0) {
    AtomicOutputFile fresh(path);
    fresh.write(std::string(kHeader) + "\n");
    fresh.commit();
  }
  journal_ = core::UniqueFd(::open(path.c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
  if (!journal_.valid()) throw_io_error(path, "cannot open resume manifest", errno);
  if (::fstat(journal_.get(), &st) != 0) throw_io_error(path, "cannot stat resume manifest", errno);
  char last = '\n';
  if (st.st_size > 0 && ::pread(journal_.get(), &last, 1, st.st_size - 1) != 1)
    throw_io_error(path, "cannot read resume manifest", errno);
  // A run killed mid-line left half a line: end it, so the next record starts on a line of its own.
  if (last != '\n' && write_all(journal_.get(), "\n") != 0)
    throw_io_error(path, "cannot append to resume manifest", errno);
}

std::vector<ManifestEntry> Manifest::find(const std::string& relative) const {
  const auto it = entries_.find(escape_file_name(relative));
  return it == entries_.end() ? std::vector<ManifestEntry>() : it->second;
}

void Manifest::record(const std::string& relative, const ManifestEntry& entry) {
  const std::string escaped = escape_file_name(relative);
  std::string line = entry_line(escaped, entry);
  if (!journal_.valid()) open_journal();  // on the first record: a run with nothing to do writes nothing
  if (const int err = write_all(journal_.get(), line); err != 0)
    throw_io_error(output_dir_ + "/" + own_name_, "cannot append to resume manifest", err);
  recorded_[escaped] = std::move(line);
  entries_[escaped].insert(entries_[escaped].begin(), entry);
}

void Manifest::compact() {
  if (recorded_.empty()) return;
  const std::string path = output_dir_ + "/" + own_name_;
  AtomicOutputFile out(path);
  out.write(std::string(kHeader) + "\n");
  core::UniqueFd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) throw_io_error(path, "cannot open resume manifest", errno);
  for_each_line(in.get(), path, [&](std::string_view line, bool complete) {
    const std::string_view file = line_file(line);
    if (!complete || file.empty() || recorded_.count(std::string(file)) != 0) return;
    out.write(line);
    out.write("\n");
  });
  for (const auto& [file, line] : recorded_) out.write(line);
  out.commit();
  recorded_.clear();
  journal_.reset();  // the compacted file is a new one: the next record reopens it
}

bool output_matches(const std::string& dst, const ManifestEntry& recorded) {
  struct stat st;
  if (::lstat(dst.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (static_cast<std::uint64_t>(st.st_size) != recorded.output_size) return false;
  core::UniqueFd fd(::open(dst.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return false;
  try {
    return hex64(crc64_of_fd(fd.get(), dst, 0)) == recorded.output_hash;
  } catch (const IoError&) {
    return false;
  }
}

ManifestEntry fingerprint_source(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) throw_io_error(path, "cannot stat", errno);
  ManifestEntry e;
  e.size = static_cast<std::uint64_t>(st.st_size);
  e.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  e.content_hash = hex64(crc64_of_fd(fd, path, 0));
  return e;
}

std::string options_fingerprint(const std::string& options_key) {
  return hex64(
      crc64_ecma_refl(0, reinterpret_cast<const unsigned char*>(options_key.data()), options_key.size()));
}

std::string model_fingerprint(const std::string& model_dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(model_dir.c_str())) {
    while (const dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      // The shortlist changes outputs under `--shortlist auto` and no crc in model.json covers it.
      const bool weights = core::ends_with(name, ".bin") && name != models::Shortlist::kFileName;
      // A card (README.md) is read by people, not by the engine: editing it must not redo a tree.
      const bool card = core::ends_with(name, ".md");
      if (name[0] != '.' && !weights && !card) names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::uint64_t crc = 0;
  for (const std::string& name : names) {
    const std::string path = model_dir + "/" + name;
    core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    struct stat st;
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    crc = crc64_ecma_refl(crc, reinterpret_cast<const unsigned char*>(name.data()), name.size());
    crc = crc64_of_fd(fd.get(), path, crc);
  }
  return hex64(crc);
}

}  // namespace cli
