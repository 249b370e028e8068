// Directory mode's record of finished outputs, so a rerun redoes exactly what is stale.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/unique_fd.h"

namespace cli {

// Every file of ours in an output directory starts with this: the manifests, their locks and the temp
// files they are compacted through (".NAME.tmp..." of those).
inline constexpr std::string_view kManifestPrefix = ".nmt-manifest";

// What produced one output, and which output it produced: the source (size, mtime, content hash), the
// model, the options, and the output's own size and hash, so a record vouches for that exact file and
// for nothing another run wrote there since.
struct ManifestEntry {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::string content_hash;  // crc64 (ECMA-182) of the source bytes, 16 hex digits
  std::string model;         // model_fingerprint()
  std::string options;       // options_fingerprint()
  std::uint64_t output_size = 0;
  std::string output_hash;  // crc64 of the output file's bytes as stored (compressed for .gz)

  // Same source, model and options (the output fields are checked against the file: output_matches).
  bool same_origin(const ManifestEntry& o) const {
    return size == o.size && mtime_ns == o.mtime_ns && content_hash == o.content_hash && model == o.model &&
           options == o.options;
  }
};

// The manifest files of one output directory: ".nmt-manifest.json", or ".nmt-manifest.I-of-N.json" for
// --shard I/N. Each is a journal in JSON Lines: a header line, then one line per finished output,
// appended as it finishes (a later line for the same file wins) and compacted at the end of the run,
// so memory and time do not grow with the tree. A run holds an exclusive lock on its own manifest
// (NAME.lock, removed when the run ends) and appends only to it; it reads all of them. File names are
// bytes: stored with '%', '"', '\', control characters and bytes outside valid UTF-8 as %XX, which is
// reversible.
class Manifest {
 public:
  // Locks our manifest, refusing (IoError) while another run holds it, and reads the entries of the
  // `wanted` relative paths from every manifest file in `output_dir`. An unreadable manifest, a
  // damaged line or an older format is ignored with a warning in warnings(): those files are redone.
  Manifest(std::string output_dir, std::string own_name, const std::vector<std::string>& wanted);
  ~Manifest();
  Manifest(const Manifest&) = delete;
  Manifest& operator=(const Manifest&) = delete;

  // Every recorded entry for `relative` (ours first).
  std::vector<ManifestEntry> find(const std::string& relative) const;
  // Appends the record of an output just renamed into place. Throws IoError (NoSpace when full).
  void record(const std::string& relative, const ManifestEntry& entry);
  // Rewrites our manifest without the lines that later ones supersede (temp file + rename). Throws
  // IoError; the journal as it stands stays valid.
  void compact();

  const std::vector<std::string>& warnings() const { return warnings_; }

  static std::string file_name(int shard_index, int shard_count);

 private:
  void lock_own_manifest();
  void read_manifest(const std::string& name, bool own, const std::unordered_set<std::string>& wanted);
  void open_journal();

  std::string output_dir_;
  std::string own_name_;
  std::string lock_path_;
  core::UniqueFd lock_;
  core::UniqueFd journal_;
  std::unordered_map<std::string, std::vector<ManifestEntry>> entries_;  // by escaped name, ours first
  std::map<std::string, std::string> recorded_;  // this run's lines by escaped name, sorted
  std::vector<std::string> warnings_;
  bool own_replaced_ = false;  // ours is damaged or of another format: start it afresh
};

// The reversible escape of a file name used in manifests (see Manifest).
std::string escape_file_name(std::string_view name);

// True if the output at `dst` is the one `recorded` describes (size, then content hash): written by
// that run and by nothing since. A missing or unreadable output is false.
bool output_matches(const std::string& dst, const ManifestEntry& recorded);

// Size, mtime and content hash of the open regular file `fd` (read from offset 0 with pread).
// Throws IoError naming `path`.
ManifestEntry fingerprint_source(int fd, const std::string& path);

// crc64 over model.json and the model's other small files (tokenizer, vocabularies, shortlist), not its
// card (*.md); the weights are covered by the crc32 that model.json records. Throws IoError.
std::string model_fingerprint(const std::string& model_dir);

// crc64 of a front::output_options_key() string: what a record keeps of the options.
std::string options_fingerprint(const std::string& options_key);

// 16 hex digits of a crc64.
std::string hex64(std::uint64_t value);

}  // namespace cli
