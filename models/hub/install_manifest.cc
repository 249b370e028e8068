#include "models/hub/install_manifest.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "models/hub/file_digest.h"
#include "models/model_error.h"
#include "models/model_store.h"

namespace hub {

namespace {

nlohmann::json files_json(const std::vector<ManifestFile>& files) {
  nlohmann::json out = nlohmann::json::array();
  for (const ManifestFile& f : files)
    out.push_back({{"path", f.path}, {"sha256", f.sha256}, {"size", f.size}});
  return out;
}

std::vector<ManifestFile> files_from(const nlohmann::json& array) {
  std::vector<ManifestFile> files;
  for (const nlohmann::json& f : array) {
    files.push_back(
        {f.at("path").get<std::string>(), f.at("sha256").get<std::string>(), f.at("size").get<uint64_t>()});
  }
  return files;
}

}  // namespace

std::vector<ManifestFile> hash_directory(const std::filesystem::path& dir) {
  std::vector<ManifestFile> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == models::kInstallManifestName || !entry.is_regular_file()) continue;
    files.push_back({name, sha256_hex(entry.path()), entry.file_size()});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string nmt_version() { return NMT_VERSION; }

void write_manifest(const std::filesystem::path& dir, const InstallManifest& m) {
  nlohmann::json out = {{"name", m.name},
                        {"languages", {{"source", m.source_lang}, {"target", m.target_lang}}},
                        {"source", m.source},
                        {"hub", m.hub},
                        {"revision", m.revision},
                        {"files", files_json(m.files)},
                        {"installed_files", files_json(m.installed_files)},
                        {"dtype", m.dtype},
                        {"size_bytes", m.size_bytes},
                        {"installed_at", m.installed_at},
                        {"nmt_version", m.nmt_version}};
  if (!m.listing.is_null()) out["listing"] = m.listing;
  const std::filesystem::path path = dir / models::kInstallManifestName;
  core::write_file_atomically(path.string(), out.dump(2) + "\n");
}

InstallManifest read_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / models::kInstallManifestName;
  std::ifstream file(path, std::ios::binary);
  if (!file) throw models::ModelError(path.string() + ": missing (not installed by `nmt models install`)");
  try {
    const nlohmann::json in = nlohmann::json::parse(file);
    InstallManifest m;
    m.name = in.at("name").get<std::string>();
    m.source_lang = in.at("languages").at("source").get<std::string>();
    m.target_lang = in.at("languages").at("target").get<std::string>();
    m.source = in.at("source").get<std::string>();
    m.hub = in.value("hub", std::string());
    m.revision = in.value("revision", std::string());
    m.files = files_from(in.at("files"));
    m.installed_files = files_from(in.at("installed_files"));
    m.dtype = in.at("dtype").get<std::string>();
    m.size_bytes = in.at("size_bytes").get<uint64_t>();
    m.installed_at = in.at("installed_at").get<std::string>();
    m.nmt_version = in.value("nmt_version", std::string());
    m.listing = in.value("listing", nlohmann::json());
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw models::ModelError(path.string() + ": malformed install manifest (" + e.what() + ")");
  }
}

}  // namespace hub
