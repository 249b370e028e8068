#include "cli/manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <isa-l/crc64.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <vector>

#include "cli/io_error.h"
#include "cli/output_file.h"
#include "core/unique_fd.h"

namespace cli {
namespace {

constexpr const char* kPrefix = ".nmt-manifest";
constexpr int kFormatVersion = 1;

std::string hex64(std::uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

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

std::string read_whole_file(const std::string& path) {
  core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) throw_io_error(path, "cannot open", errno);
  std::string data;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_io_error(path, "read failed", errno);
    if (n == 0) return data;
    data.append(buf, static_cast<std::size_t>(n));
  }
}

nlohmann::json to_json(const ManifestEntry& e) {
  return {{"size", e.size},
          {"mtime_ns", e.mtime_ns},
          {"crc64", e.content_hash},
          {"model", e.model},
          {"options", e.options}};
}

ManifestEntry from_json(const nlohmann::json& j) {
  ManifestEntry e;
  e.size = j.at("size").get<std::uint64_t>();
  e.mtime_ns = j.at("mtime_ns").get<std::int64_t>();
  e.content_hash = j.at("crc64").get<std::string>();
  e.model = j.at("model").get<std::string>();
  e.options = j.at("options").get<std::string>();
  return e;
}

std::vector<std::string> manifest_files(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name.rfind(kPrefix, 0) == 0 && name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
      names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::string Manifest::file_name(int shard_index, int shard_count) {
  if (shard_count <= 1) return std::string(kPrefix) + ".json";
  return std::string(kPrefix) + "." + std::to_string(shard_index) + "-of-" + std::to_string(shard_count) +
         ".json";
}

Manifest::Manifest(std::string output_dir, std::string own_name)
    : output_dir_(std::move(output_dir)), own_name_(std::move(own_name)) {
  std::map<std::string, ManifestEntry> others;
  for (const std::string& name : manifest_files(output_dir_)) {
    const std::string path = output_dir_ + "/" + name;
    try {
      const nlohmann::json j = nlohmann::json::parse(read_whole_file(path));
      if (j.at("version").get<int>() != kFormatVersion) throw std::runtime_error("unknown version");
      auto& target = name == own_name_ ? own_ : others;
      for (const auto& [relative, entry] : j.at("files").items()) target[relative] = from_json(entry);
    } catch (const std::exception&) {
      warnings_.push_back(printable_path(path) +
                          ": unreadable resume manifest, ignored (its files are redone)");
    }
  }
  all_ = std::move(others);
  for (const auto& [relative, entry] : own_) all_[relative] = entry;
}

const ManifestEntry* Manifest::find(const std::string& relative) const {
  auto it = all_.find(relative);
  return it == all_.end() ? nullptr : &it->second;
}

void Manifest::record(const std::string& relative, const ManifestEntry& entry) {
  own_[relative] = entry;
  all_[relative] = entry;
  dirty_ = true;
}

void Manifest::save() {
  if (!dirty_) return;
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [relative, entry] : own_) files[relative] = to_json(entry);
  const nlohmann::json j = {{"version", kFormatVersion}, {"files", files}};
  AtomicOutputFile out(output_dir_ + "/" + own_name_);
  out.write(j.dump(1) + "\n");
  out.commit();
  dirty_ = false;
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

std::string model_fingerprint(const std::string& model_dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(model_dir.c_str())) {
    while (const dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      const bool weights = name.size() > 4 && name.compare(name.size() - 4, 4, ".bin") == 0;
      if (name[0] != '.' && !weights) names.push_back(name);
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
