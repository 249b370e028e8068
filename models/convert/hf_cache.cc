#include "models/convert/hf_cache.h"

#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "core/regular_file.h"
#include "models/model_error.h"

namespace models {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxRefBytes = 256;  // a ref holds one commit hash

bool name_part(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

struct RepoId {
  std::string org, name, revision = "main";
};

bool parse(const std::string& spec, RepoId* id) {
  const size_t slash = spec.find('/');
  if (slash == std::string::npos) return false;
  const size_t at = spec.find('@', slash);
  id->org = spec.substr(0, slash);
  id->name = spec.substr(slash + 1, at == std::string::npos ? std::string::npos : at - slash - 1);
  if (at != std::string::npos) id->revision = spec.substr(at + 1);
  return name_part(id->org) && name_part(id->name) && name_part(id->revision);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool is_directory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

}  // namespace

bool is_hf_repo_id(const std::string& spec) {
  RepoId id;
  return parse(spec, &id);
}

std::string hf_hub_cache_dir() {
  if (!env("HF_HUB_CACHE").empty()) return env("HF_HUB_CACHE");
  if (!env("HF_HOME").empty()) return env("HF_HOME") + "/hub";
  if (!env("HOME").empty()) return env("HOME") + "/.cache/huggingface/hub";
  return "";
}

std::string find_hf_snapshot(const std::string& spec) {
  RepoId id;
  if (!parse(spec, &id)) throw ModelError(spec + ": not a Hugging Face repository id (ORG/NAME[@REVISION])");
  const std::string cache = hf_hub_cache_dir();
  if (cache.empty())
    throw ModelError(spec +
                     ": not a directory, and no Hugging Face cache (HF_HUB_CACHE, HF_HOME, HOME unset)");
  const std::string repo = cache + "/models--" + id.org + "--" + id.name;
  const std::string ref = repo + "/refs/" + id.revision;
  std::string commit = id.revision;  // a commit hash names its snapshot directly
  std::error_code ec;
  if (fs::is_regular_file(ref, ec)) {
    try {
      commit = core::read_regular_file(ref, "Hugging Face cache ref", kMaxRefBytes);
    } catch (const core::Error& e) {
      throw ModelError(e.what());
    }
    while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r' || commit.back() == ' '))
      commit.pop_back();
    if (!name_part(commit)) throw ModelError(ref + ": not a commit hash");
  }
  const std::string snapshot = repo + "/snapshots/" + commit;
  if (!is_directory(snapshot)) {
    const std::string looked = commit == id.revision ? "neither " + ref + " nor " + snapshot
                                                     : ref + " names " + commit + ", but no " + snapshot;
    throw ModelError(spec + ": not a directory, and not in the Hugging Face cache (" + looked +
                     "; HF_HUB_CACHE or HF_HOME name another cache)");
  }
  return snapshot;
}

}  // namespace models
