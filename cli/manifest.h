// Directory mode's record of finished outputs, so a rerun redoes exactly what is stale.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace cli {

// What produced one output: its source (size, mtime, content hash), the model and the options.
struct ManifestEntry {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::string content_hash;  // crc64 (ECMA-182) of the source bytes, 16 hex digits
  std::string model;         // model_fingerprint()
  std::string options;       // output_options_key()

  bool operator==(const ManifestEntry& o) const {
    return size == o.size && mtime_ns == o.mtime_ns && content_hash == o.content_hash && model == o.model &&
           options == o.options;
  }
};

// The manifest files of one output directory: ".nmt-manifest.json", or ".nmt-manifest.I-of-N.json" for
// --shard I/N, so shards writing into a shared directory never overwrite each other's record. All of
// them are read; only our own is written, atomically (temp file + rename), as a whole.
class Manifest {
 public:
  // Reads every manifest file in `output_dir` (none yet: empty). A corrupt one is ignored with a
  // warning in warnings(): its files count as stale and are redone.
  Manifest(std::string output_dir, std::string own_name);

  // The recorded entry for `relative`, or nullptr.
  const ManifestEntry* find(const std::string& relative) const;
  // Records a finished output; save() writes it out.
  void record(const std::string& relative, const ManifestEntry& entry);
  // Writes our manifest file if something changed since the last save. Throws IoError.
  void save();

  const std::vector<std::string>& warnings() const { return warnings_; }

  static std::string file_name(int shard_index, int shard_count);

 private:
  std::string output_dir_;
  std::string own_name_;
  std::map<std::string, ManifestEntry> all_;  // every manifest's entries (ours win)
  std::map<std::string, ManifestEntry> own_;
  std::vector<std::string> warnings_;
  bool dirty_ = false;
};

// Size, mtime and content hash of the open regular file `fd` (read from offset 0 with pread).
// Throws IoError naming `path`.
ManifestEntry fingerprint_source(int fd, const std::string& path);

// crc64 over model.json and the model's other small files (tokenizer, vocabularies); the weights are
// covered by the crc32 that model.json records. Throws IoError.
std::string model_fingerprint(const std::string& model_dir);

}  // namespace cli
