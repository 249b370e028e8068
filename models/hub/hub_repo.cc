#include "models/hub/hub_repo.h"

#include <curl/curl.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "models/hub/file_digest.h"

namespace hub {

namespace {

namespace fs = std::filesystem;

// Read by the converters (docs/convert.md); weights are chosen apart, one file only.
const std::set<std::string> kConversionFiles = {"config.json",
                                                "generation_config.json",
                                                "tokenizer_config.json",
                                                "special_tokens_map.json",
                                                "vocab.json",
                                                "target_vocab.json",
                                                "source.spm",
                                                "target.spm",
                                                "README.md"};
const char* const kWeightsByPreference[] = {"model.safetensors", "pytorch_model.bin"};

std::string escaped(const std::string& text) {
  char* out = curl_easy_escape(nullptr, text.data(), static_cast<int>(text.size()));
  std::string result = out ? out : "";
  curl_free(out);
  return result;
}

bool is_commit_hash(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The one-line message for a request about `spec` on `hub` that failed.
[[noreturn]] void fail(const RepoSpec& spec, const std::string& hub, const HttpError& e,
                       const std::string& what, int attempts) {
  std::string why;
  if (e.status() == 404) {
    why = "no such repository or revision '" + spec.revision + "' on " + hub + " (HTTP 404)";
  } else if (e.status() == 401 || e.status() == 403) {
    why = "access denied by " + hub + " (HTTP " + std::to_string(e.status()) +
          "): give a token with --token or " + kTokenEnv;
  } else if (e.status() == 0) {
    why = "cannot download from " + hub + ": " + e.what();
  } else {
    const bool retried =
        e.status() >= 500 || e.status() == 429 || e.status() == 408;  // as http_client retries
    why = "HTTP " + std::to_string(e.status()) + " from " + hub +
          (retried ? " (" + std::to_string(attempts) + " tries)" : "");
  }
  throw DownloadError(spec.repo + (what.empty() ? "" : " " + what) + ": " + why + "; " + offline_advice());
}

}  // namespace

std::string offline_advice() {
  return "to install offline, download the model elsewhere and run `nmt models install /path/to/model-dir`";
}

std::string saved_token() {
  if (const char* token = std::getenv(kTokenEnv); token != nullptr && *token != '\0') return token;
  std::string path;
  if (const char* p = std::getenv("HF_TOKEN_PATH"); p != nullptr && *p != '\0') {
    path = p;
  } else if (const char* home = std::getenv("HF_HOME"); home != nullptr && *home != '\0') {
    path = std::string(home) + "/token";
  } else if (const char* user = std::getenv("HOME"); user != nullptr && *user != '\0') {
    path = std::string(user) + "/.cache/huggingface/token";
  }
  std::ifstream in(path);
  std::string token;
  std::getline(in, token);
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  return token;
}

std::string hub_endpoint(const std::string& flag) {
  std::string hub = flag;
  for (const char* env : {kHubEnv, kHfEndpointEnv}) {
    if (!hub.empty()) break;
    if (const char* value = std::getenv(env)) hub = value;
  }
  if (hub.empty()) hub = kDefaultHub;
  while (!hub.empty() && hub.back() == '/') hub.pop_back();
  return hub;
}

RepoSpec parse_repo_spec(const std::string& text) {
  RepoSpec spec;
  const size_t at = text.find('@');
  spec.repo = text.substr(0, at);
  if (at != std::string::npos) spec.revision = text.substr(at + 1);
  return spec;
}

RepoRevision fetch_revision(const std::string& hub, const RepoSpec& spec, const HttpSettings& settings) {
  const std::string url =
      hub + "/api/models/" + spec.repo + "/revision/" + escaped(spec.revision) + "?blobs=true";
  std::string body;
  try {
    body = get_text(url, settings, kMaxApiAnswerBytes);
  } catch (const HttpError& e) {
    fail(spec, hub, e, "", settings.attempts);
  }
  RepoRevision revision;
  try {
    const nlohmann::json info = nlohmann::json::parse(body);
    revision.commit = info.at("sha").get<std::string>();
    for (const nlohmann::json& sibling : info.at("siblings")) {
      HubFile file;
      file.path = sibling.at("rfilename").get<std::string>();
      file.size = sibling.value("size", uint64_t{0});
      file.blob_id = sibling.value("blobId", std::string());
      if (sibling.contains("lfs") && sibling["lfs"].is_object()) {
        file.sha256 = sibling["lfs"].at("sha256").get<std::string>();
        file.size = sibling["lfs"].value("size", file.size);
      }
      revision.files.push_back(file);
    }
  } catch (const nlohmann::json::exception& e) {
    throw DownloadError(spec.repo + ": " + hub + " answered " + url + " with unexpected JSON (" + e.what() +
                        ")");
  }
  if (!is_commit_hash(revision.commit)) {
    throw DownloadError(spec.repo + ": " + hub + " gave no commit hash for revision '" + spec.revision + "'");
  }
  return revision;
}

std::vector<HubFile> conversion_files(const RepoSpec& spec, const std::vector<HubFile>& all) {
  std::vector<HubFile> chosen;
  for (const HubFile& f : all) {
    if (kConversionFiles.count(f.path)) chosen.push_back(f);
  }
  for (const char* weights : kWeightsByPreference) {
    for (const HubFile& f : all) {
      if (f.path == weights) {
        chosen.push_back(f);
        return chosen;
      }
    }
  }
  throw DownloadError(spec.repo + ": revision '" + spec.revision +
                      "' has neither model.safetensors nor pytorch_model.bin (nmt reads no TensorFlow, Flax "
                      "or Rust weights)");
}

fs::path fetch_files(const std::string& hub, const RepoSpec& spec, const RepoRevision& revision,
                     const std::vector<HubFile>& files, const fs::path& cache, const HttpSettings& settings,
                     const DownloadProgress& progress) {
  std::string flat = spec.repo;
  flat.replace(flat.find('/'), 1, "--");
  const fs::path dir = cache / flat / revision.commit;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw DownloadError(dir.string() + ": cannot create the download cache (" + ec.message() + ")");
  uint64_t total = 0, done_before = 0;
  for (const HubFile& f : files) total += f.size;
  for (const HubFile& f : files) {
    const fs::path final_path = dir / f.path;
    const fs::path partial = dir / (f.path + ".partial");
    const auto check = [&](const fs::path& p) {
      return f.sha256.empty() ? git_blob_id(p) == f.blob_id || f.blob_id.empty() : sha256_hex(p) == f.sha256;
    };
    if (fs::is_regular_file(final_path, ec) && fs::file_size(final_path, ec) == f.size && check(final_path)) {
      done_before += f.size;
      if (progress) progress(done_before, total);
      continue;
    }
    if (fs::exists(partial, ec) && fs::file_size(partial, ec) > f.size) fs::remove(partial, ec);
    const std::string url = hub + "/" + spec.repo + "/resolve/" + revision.commit + "/" + f.path;
    try {
      if (!fs::exists(partial, ec) || fs::file_size(partial, ec) < f.size || f.size == 0) {
        if (progress) progress(done_before, total);
        download(url, partial, settings, [&](uint64_t in_file) {
          if (progress) progress(done_before + in_file, total);
        });
      }
    } catch (const HttpError& e) {
      fail(spec, hub, e, f.path, settings.attempts);
    }
    const uint64_t got = fs::file_size(partial, ec);
    if (got != f.size || !check(partial)) {
      const std::string expected = f.sha256.empty() ? "git blob " + f.blob_id : "sha256 " + f.sha256;
      const std::string actual = f.sha256.empty() ? git_blob_id(partial) : sha256_hex(partial);
      fs::remove(partial, ec);
      throw DownloadError(spec.repo + ": " + f.path + " does not match the hub's checksum (" +
                          std::to_string(got) + " bytes, expected " + std::to_string(f.size) + "; " +
                          expected + ", got " + actual + "); nothing installed");
    }
    fs::rename(partial, final_path, ec);
    if (ec) throw DownloadError(final_path.string() + ": cannot store the download (" + ec.message() + ")");
    done_before += f.size;
  }
  return dir;
}

}  // namespace hub
