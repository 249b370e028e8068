// install.json, what `nmt models install` records next to an installed checkpoint: where it came from,
// the sha256 of every input file and of every installed file (`nmt models verify` re-hashes the latter).
// See docs/models.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hub {

struct ManifestFile {
  std::string path;  // relative to its directory
  std::string sha256;
  uint64_t size = 0;
};

struct InstallManifest {
  std::string name;
  std::string source_lang, target_lang;
  std::string source;    // a hub repository id, or the local path installed from
  std::string hub;       // the hub it came from; "" for a local source
  std::string revision;  // the commit sha when from the hub; "" for a local source
  // From a model listing: {"url", "kind", "code", "version", "entry" (the listing's own record(s))}; null
  // otherwise.
  nlohmann::json listing;
  std::vector<ManifestFile> files;            // the inputs the conversion read
  std::vector<ManifestFile> installed_files;  // the checkpoint as written
  std::string dtype;                          // f32, f16 or int8
  uint64_t size_bytes = 0;                    // of the installed files
  std::string installed_at;                   // UTC, ISO 8601
  std::string nmt_version;
};

// Every regular file directly in `dir` but install.json, sorted by name, with its sha256 and size.
std::vector<ManifestFile> hash_directory(const std::filesystem::path& dir);

// The current UTC time as 2026-01-31T12:34:56Z.
std::string utc_now();

// The version of nmt writing manifests.
std::string nmt_version();

// Writes DIR/install.json. Throws core::Error.
void write_manifest(const std::filesystem::path& dir, const InstallManifest& manifest);

// DIR/install.json. Throws models::ModelError naming the file when it is missing or malformed.
InstallManifest read_manifest(const std::filesystem::path& dir);

}  // namespace hub
