// `nmt models install`: fetch the files (hub download cache, a model listing's package or files, the Hugging
// Face cache or a local directory),
// convert them into a hidden staging directory, record install.json, and rename it into place.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <system_error>

#include "cli/commands/convert_command.h"
#include "cli/commands/models_command.h"
#include "cli/io/download_meter.h"
#include "cli/io/progress_text.h"
#include "core/error.h"
#include "models/convert/argos_package.h"
#include "models/convert/hf_cache.h"
#include "models/hub/file_digest.h"
#include "models/hub/hub_repo.h"
#include "models/hub/install_manifest.h"
#include "models/hub/listing_choice.h"
#include "models/hub/listing_package.h"
#include "models/hub/model_listing.h"
#include "models/hub/tar_package.h"
#include "models/hub/url_package.h"
#include "models/model_config.h"
#include "models/model_error.h"
#include "models/model_store.h"

namespace cli {

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxNameLength = 100;
constexpr const char* kDownloadCache = ".downloads";  // under the models home
constexpr const char* kOfflineEnv = "HF_HUB_OFFLINE";

// What the conversion reads and where it came from.
struct Source {
  fs::path dir;
  std::string from;                      // the layout for convert; "" to detect
  std::string source_lang, target_lang;  // what the source states, unless the options say
  hub::InstallManifest manifest;         // source, hub, revision, files
  bool downloaded = false;               // `dir` is ours, in the download cache
  fs::path cleanup;                      // what to delete once installed: `dir` unless set
};

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength || name[0] == '.') return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

bool offline() {
  const char* value = std::getenv(kOfflineEnv);
  if (value == nullptr) return false;
  const std::string v = value;
  return v == "1" || v == "ON" || v == "YES" || v == "TRUE" || v == "on" || v == "yes" || v == "true";
}

bool is_commit_hash(const std::string& s) {
  return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// "-PID-RANDOM": names a staging directory after its process, so a later install can tell a dead one's.
std::string staging_suffix() {
  std::random_device device;
  return "-" + std::to_string(::getpid()) + "-" + std::to_string(device() % 1000000000u);
}

// Removes .installing-*-PID-N and .removing-*-PID-N directories whose process is gone (killed mid-install).
void remove_stale_staging(const fs::path& home) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(home, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(".installing-", 0) != 0 && name.rfind(".removing-", 0) != 0) continue;
    const size_t last = name.rfind('-');
    const size_t before =
        last == std::string::npos || last == 0 ? std::string::npos : name.rfind('-', last - 1);
    if (before == std::string::npos) continue;
    const std::string pid_text = name.substr(before + 1, last - before - 1);
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      fs::remove_all(entry.path(), ec);
  }
}

// The repository's snapshot in the Hugging Face cache, hashed as it is.
Source from_hf_cache(const std::string& spec) {
  Source s;
  s.dir = models::find_hf_snapshot(spec);
  s.from = "hf-marian";
  s.manifest.source = hub::parse_repo_spec(spec).repo;
  s.manifest.revision = fs::path(s.dir).filename().string();
  s.manifest.files = hub::hash_directory(s.dir);
  std::cerr << "nmt: " << spec << ": from the Hugging Face cache " << s.dir.string() << "\n";
  return s;
}

Source from_hub(const ModelsCommandOptions& o, const fs::path& home) {
  const hub::RepoSpec spec = hub::parse_repo_spec(o.spec);
  if (offline()) return from_hf_cache(o.spec);
  if (is_commit_hash(spec.revision)) {
    try {
      return from_hf_cache(o.spec);
    } catch (const models::ModelError&) {  // not in the cache: download it
    }
  }
  Source s;
  const std::string hub_url = hub::hub_endpoint(o.hub);
  hub::HttpSettings settings = hub::HttpSettings::from_environment();
  settings.token = o.token.empty() ? hub::saved_token() : o.token;
  settings.token_origin = hub::url_origin(hub_url);
  const hub::RepoRevision revision = hub::fetch_revision(hub_url, spec, settings);
  const std::vector<hub::HubFile> files = hub::conversion_files(spec, revision.files);
  DownloadMeter meter;
  s.dir = hub::fetch_files(hub_url, spec, revision, files, home / kDownloadCache, settings,
                           [&](uint64_t done, uint64_t total) { meter.update(done, total); });
  meter.finish(spec.repo + "@" + revision.commit.substr(0, 12));
  s.from = "hf-marian";
  s.downloaded = true;
  s.manifest.source = spec.repo;
  s.manifest.hub = hub_url;
  s.manifest.revision = revision.commit;
  for (const hub::HubFile& f : files) {
    s.manifest.files.push_back(
        {f.path, f.sha256.empty() ? hub::sha256_hex(s.dir / f.path) : f.sha256, f.size});
  }
  return s;
}

// Whether the download is gzip (a .tar.gz package, translateLocally's) rather than a zip: its first bytes.
bool is_gzip(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[2] = {};
  in.read(magic, 2);
  return in.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
         static_cast<unsigned char>(magic[1]) == 0x8b;
}

// A .zip or .tar.gz package by URL, unpacked next to its download.
Source from_url(const ModelsCommandOptions& o, const fs::path& home) {
  hub::HttpSettings settings = hub::HttpSettings::from_environment();
  DownloadMeter meter;
  const fs::path zip = hub::fetch_package(o.spec, home / kDownloadCache, settings,
                                          [&](uint64_t done, uint64_t total) { meter.update(done, total); });
  meter.finish(o.spec);
  Source s;
  s.dir = zip.parent_path() / "unpacked";
  std::error_code ec;
  fs::remove_all(s.dir, ec);
  if (is_gzip(zip))
    hub::unpack_tar_gz(zip, s.dir);
  else
    hub::unpack_zip(zip, s.dir);
  s.downloaded = true;
  s.manifest.source = o.spec;
  s.manifest.files = {{zip.filename().string(), hub::sha256_hex(zip), fs::file_size(zip)}};
  s.cleanup = zip.parent_path();
  return s;
}

// A model a listing names, chosen before anything is downloaded (its code names the install).
struct ListingChoice {
  hub::Listing listing;
  hub::ListingEntry entry;
};

ListingChoice choose_from_listing(const ModelsCommandOptions& o, const std::string& location) {
  ListingChoice choice;
  choice.listing = hub::fetch_listing(location, hub::HttpSettings::from_environment());
  choice.entry = hub::choose_listing_entry(choice.listing, o.spec);
  return choice;
}

Source from_listing(const ModelsCommandOptions& o, const ListingChoice& choice, const fs::path& home) {
  const hub::ListingEntry& entry = choice.entry;
  DownloadMeter meter;
  const hub::FetchedEntry fetched = hub::fetch_listing_entry(
      choice.listing, entry, home / kDownloadCache, hub::HttpSettings::from_environment(),
      [&](uint64_t done, uint64_t total) { meter.update(done, total); });
  meter.finish(entry.code + " " + entry.version);
  Source s;
  s.dir = fetched.dir;
  s.cleanup = fetched.cache;
  s.downloaded = true;
  s.from = "marian-npz";
  s.source_lang = hub::entry_source_lang(entry, o.spec);
  s.target_lang = entry.target_lang;
  s.manifest.source = choice.listing.kind == hub::ListingKind::kTranslateLocally ? entry.files.front().url
                                                                                 : choice.listing.url;
  s.manifest.files = fetched.files;
  s.manifest.listing = {{"url", choice.listing.url},
                        {"kind", hub::listing_kind_word(choice.listing.kind)},
                        {"code", entry.code},
                        {"version", entry.version},
                        {"entry", entry.listed}};
  return s;
}

Source from_directory(const std::string& path) {
  // A local Argos Translate package installs as it is, like a directory.
  const bool package = fs::is_regular_file(path) && models::is_argos_package(path);
  if (!fs::is_directory(path) && !package) {
    throw core::UsageError("'" + path +
                           "' is not a model directory (give a directory nmt convert reads, a .argosmodel "
                           "file, or ORG/NAME on the hub)");
  }
  Source s;
  s.dir = path;
  s.manifest.source = fs::absolute(path).lexically_normal().string();
  if (package) {
    s.manifest.files = {{fs::path(path).filename().string(), hub::sha256_hex(path), fs::file_size(path)}};
  } else {
    s.manifest.files = hub::hash_directory(path);
  }
  return s;
}

std::string default_name(const std::string& spec, bool from_hub, bool is_url) {
  if (from_hub) return fs::path(hub::parse_repo_spec(spec).repo).filename().string();
  if (is_url) {  // the file's name without .zip or .tar.gz and query
    const std::string path = spec.substr(0, spec.find_first_of("?#"));
    const fs::path stem = fs::path(path).stem();
    return stem.extension() == ".tar" ? stem.stem().string() : stem.string();
  }
  fs::path p = fs::path(spec).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  if (p.extension() == ".argosmodel") return p.stem().string();
  return fs::absolute(p).filename().string();
}

std::string dtype_word(models::DType dtype) {
  return dtype == models::DType::kI8 ? "int8" : dtype == models::DType::kF16 ? "f16" : "f32";
}

// Converts `source` into `staging` (languages: the options', else what the files say, else the
// repository's name).
models::ConvertReport convert_into(const ModelsCommandOptions& o, const Source& source,
                                   const fs::path& staging) {
  ConvertCommandOptions co;
  co.from = source.from;
  co.source_dir = source.dir.string();
  co.output_dir = staging.string();
  co.dtype = o.dtype;
  co.source_lang = o.source_lang.empty() ? source.source_lang : o.source_lang;
  co.target_lang = o.target_lang.empty() ? source.target_lang : o.target_lang;
  models::ConvertReport report = convert_checkpoint(co);
  const auto [named_source, named_target] = models::languages_from_model_name(source.manifest.source);
  if ((report.description.source_lang.empty() || report.description.target_lang.empty()) &&
      !named_source.empty() && co.source_lang.empty() && co.target_lang.empty()) {
    fs::remove_all(staging);
    co.source_lang = named_source;
    co.target_lang = named_target;
    report = convert_checkpoint(co);
  }
  if (report.description.source_lang.empty() || report.description.target_lang.empty()) {
    throw core::UsageError(source.manifest.source +
                           " does not state its languages: give them with --source-lang and --target-lang");
  }
  return report;
}

// Moves the finished staging directory to `dest`: a rename, or with --force an atomic exchange with the
// model there (whose files are then deleted).
void put_in_place(const fs::path& staging, const fs::path& dest, bool replace) {
  if (replace && ::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, dest.c_str(), RENAME_EXCHANGE) == 0) {
    std::error_code ec;
    fs::remove_all(staging, ec);  // now the replaced model
    return;
  }
  std::error_code ec;
  fs::rename(staging, dest, ec);
  if (ec) throw core::Error(dest.string() + ": cannot install (" + ec.message() + ")");
}

}  // namespace

int run_models_install(const ModelsCommandOptions& o) {
  const fs::path home = models::models_home();
  if (home.empty()) {
    throw core::UsageError(std::string("no models home: set ") + models::kModelsDirEnv + " or HOME");
  }
  const bool is_url = o.spec.rfind("https://", 0) == 0 || o.spec.rfind("http://", 0) == 0;
  if (is_url && !o.hub.empty()) throw core::UsageError("--hub is for ORG/NAME installs, not URLs");
  std::error_code ec;
  const bool local = !is_url && fs::symlink_status(o.spec, ec).type() != fs::file_type::not_found;
  const bool is_hub = !local && models::is_hf_repo_id(o.spec);
  const std::string listing = hub::listing_location(o.listing);
  // --listing says where SPEC is; $NMT_LISTING only where SPEC is nothing else.
  const bool is_listed = !o.listing.empty() || (!listing.empty() && !local && !is_hub && !is_url);
  if (!o.listing.empty() && (is_url || is_hub || !o.hub.empty())) {
    throw core::UsageError(
        "--listing takes a language pair or a code (en-de, en-de-tiny), not a URL, "
        "ORG/NAME or --hub");
  }
  if (!local && !is_hub && !is_url && !is_listed) {
    throw core::UsageError("'" + o.spec +
                           "' is neither a directory nor a hub repository (ORG/NAME[@REVISION]); a pair "
                           "or code needs --listing or $" +
                           hub::kListingEnv);
  }
  ListingChoice choice;
  if (is_listed) choice = choose_from_listing(o, listing);
  const std::string name =
      !o.name.empty() ? o.name
      : is_listed
          ? choice.entry.code + (choice.listing.kind == hub::ListingKind::kRemoteSettings ? "-firefox" : "")
          : default_name(o.spec, is_hub, is_url);
  if (!valid_name(name)) {
    throw core::UsageError("'" + name +
                           "' cannot name a model: use letters, digits, '.', '_' and '-', not a "
                           "leading '.'; give --name");
  }
  const fs::path dest = home / name;
  const bool exists = fs::symlink_status(dest, ec).type() != fs::file_type::not_found;
  if (exists && !o.force) {
    throw core::UsageError("a model named '" + name + "' is installed already (" + dest.string() +
                           "); --force replaces it");
  }
  fs::create_directories(home, ec);
  if (ec) throw core::Error(home.string() + ": cannot create the models home (" + ec.message() + ")");

  Source source = is_listed ? from_listing(o, choice, home)
                  : is_hub  ? from_hub(o, home)
                  : is_url  ? from_url(o, home)
                            : from_directory(o.spec);
  remove_stale_staging(home);
  const fs::path staging = home / (".installing-" + name + staging_suffix());
  try {
    const models::ConvertReport report = convert_into(o, source, staging);
    for (const std::string& w : report.warnings) std::cerr << "nmt: warning: " << w << "\n";
    hub::InstallManifest& m = source.manifest;
    m.name = name;
    m.source_lang = report.description.source_lang;
    m.target_lang = report.description.target_lang;
    m.dtype = dtype_word(report.dtype);
    m.installed_files = hub::hash_directory(staging);
    for (const hub::ManifestFile& f : m.installed_files) m.size_bytes += f.size;
    m.installed_at = hub::utc_now();
    m.nmt_version = hub::nmt_version();
    hub::write_manifest(staging, m);
    put_in_place(staging, dest, exists);
    if (source.downloaded) {  // installed: the download served its turn
      fs::remove_all(source.cleanup.empty() ? source.dir : source.cleanup, ec);
    }
    std::cout << "installed " << name << ": " << m.source_lang << " -> " << m.target_lang << ", " << m.dtype
              << ", " << format_bytes(m.size_bytes, 0) << ", from ";
    if (is_listed) {
      std::cout << choice.entry.code << " version " << choice.entry.version << " in " << choice.listing.url;
    } else {
      std::cout << o.spec
                << (m.revision.empty() || o.spec.find('@') != std::string::npos
                        ? ""
                        : "@" + m.revision.substr(0, 12));
    }
    std::cout << "\n";
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
  return 0;
}

}  // namespace cli
