// A model repository on the Hugging Face hub, as huggingface_hub reads it: the revision's file list from
// GET {hub}/api/models/{repo}/revision/{rev}?blobs=true, each file from {hub}/{repo}/resolve/{commit}/{path}
// (often a redirect to the LFS storage host). See docs/models.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/hub/http_client.h"

namespace hub {

// A download that failed: HTTP status, no network, a checksum that does not match (exit code 4).
class DownloadError : public core::Error {
 public:
  using core::Error::Error;
};

constexpr const char* kDefaultHub = "https://huggingface.co";
constexpr const char* kHubEnv = "NMT_HUB";  // first, then huggingface_hub's own:
constexpr const char* kHfEndpointEnv = "HF_ENDPOINT";
constexpr const char* kTokenEnv = "HF_TOKEN";
constexpr size_t kMaxApiAnswerBytes = 16u << 20;

// `flag` (--hub) if given, else $NMT_HUB, else $HF_ENDPOINT, else kDefaultHub; no trailing '/'.
std::string hub_endpoint(const std::string& flag);

struct RepoSpec {
  std::string repo;  // ORG/NAME
  std::string revision = "main";
};
// ORG/NAME or ORG/NAME@REVISION (models::is_hf_repo_id's shape).
RepoSpec parse_repo_spec(const std::string& spec);

struct HubFile {
  std::string path;
  uint64_t size = 0;
  std::string sha256;   // LFS files: the hub states it
  std::string blob_id;  // files kept in git: the git blob id (sha1 of "blob SIZE\0" + content)
};

struct RepoRevision {
  std::string commit;  // the revision's commit sha (40 hex digits)
  std::vector<HubFile> files;
};

// The revision's commit and files. Throws DownloadError: one line naming the repository, the hub, the
// HTTP status (or the network failure) and how to install offline.
RepoRevision fetch_revision(const std::string& hub, const RepoSpec& spec, const HttpSettings& settings);

// The files a conversion reads: the configs, tokenizer files and vocabularies, and one weights file
// (model.safetensors, else pytorch_model.bin; never tf_model.h5, rust_model.ot or flax). Throws
// DownloadError when the repository has no weights nmt reads.
std::vector<HubFile> conversion_files(const RepoSpec& spec, const std::vector<HubFile>& all);

// Bytes downloaded so far of `total`, while fetch_files runs.
using DownloadProgress = std::function<void(uint64_t done, uint64_t total)>;

// Downloads `files` of `revision` into CACHE/ORG--NAME/COMMIT/ (each through PATH.partial, resumed when a
// partial file is there, checked against its sha256 or blob id before it takes its name); files already
// there and whole are checked, not fetched again. Returns that directory. Throws DownloadError.
std::filesystem::path fetch_files(const std::string& hub, const RepoSpec& spec, const RepoRevision& revision,
                                  const std::vector<HubFile>& files, const std::filesystem::path& cache,
                                  const HttpSettings& settings, const DownloadProgress& progress);

// The token huggingface_hub would send: $HF_TOKEN, else the file $HF_TOKEN_PATH, $HF_HOME/token or
// ~/.cache/huggingface/token (`huggingface-cli login` writes it), first line; "" when none.
std::string saved_token();

// "how to install offline" advice every download error ends with.
std::string offline_advice();

}  // namespace hub
