// `nmt models list`, `remove` and `verify`: the store (models/model_store.h) plus the bundled models.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <system_error>

#include "cli/commands/models_command.h"
#include "cli/exit_codes.h"
#include "cli/io/progress_text.h"
#include "core/error.h"
#include "front/model_path.h"
#include "models/hub/install_manifest.h"
#include "models/model_error.h"
#include "models/model_store.h"

namespace cli {

namespace {

namespace fs = std::filesystem;

struct Row {
  models::StoredModel model;
  std::string pair;
  uint64_t size = 0;
  std::string dtype;
  std::string source;  // repo@commit, a path, or "bundled"
  std::string revision, installed_at;
  std::string winner;  // bundled models: the installed model that wins for the same pair
};

uint64_t directory_size(const fs::path& dir) {
  uint64_t size = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) size += entry.file_size(ec);
  }
  return size;
}

// int8 when any weight is int8, else f16 when any is f16, else f32 (model.json's tensor dtypes).
std::string weights_dtype(const fs::path& dir) {
  std::ifstream in(dir / "model.json", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find("\"i8\"") != std::string::npos) return "int8";
  if (text.find("\"f16\"") != std::string::npos) return "f16";
  return "f32";
}

std::vector<models::StoredModel> bundled_models() {
  std::vector<models::StoredModel> found;
  const fs::path data = fs::path(front::default_model_dir()).parent_path();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(data, ec)) {
    if (!fs::is_regular_file(entry.path() / "model.json", ec)) continue;
    try {
      found.push_back(models::describe_model_dir(entry.path(), true));
    } catch (const models::ModelError&) {
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return found;
}

Row row_for(const models::StoredModel& m, const std::string& source) {
  Row r;
  r.model = m;
  r.pair = m.source_lang + "-" + m.target_lang;
  r.size = directory_size(m.dir);
  r.dtype = weights_dtype(m.dir);
  r.source = source;
  return r;
}

std::vector<Row> all_rows() {
  std::vector<Row> rows;
  for (const models::StoredModel& m : models::list_stored_models(models::models_home())) {
    Row r = row_for(m, "?");
    try {
      const hub::InstallManifest manifest = hub::read_manifest(m.dir);
      r.dtype = manifest.dtype;
      r.size = manifest.size_bytes;  // the checkpoint's files, as installed
      r.revision = manifest.revision;
      r.installed_at = manifest.installed_at;
      r.source = manifest.source + (manifest.revision.empty() ? "" : "@" + manifest.revision.substr(0, 12));
    } catch (const models::ModelError&) {
      r.source = "(no install.json)";
    }
    rows.push_back(r);
  }
  const size_t installed = rows.size();
  for (const models::StoredModel& m : bundled_models()) {
    Row r = row_for(m, "bundled");
    for (size_t i = 0; i < installed && r.winner.empty(); ++i) {
      if (rows[i].pair == r.pair) r.winner = rows[i].model.name;
    }
    if (!r.winner.empty()) r.source += " (" + r.winner + " wins for " + r.pair + ")";
    rows.push_back(r);
  }
  return rows;
}

// The installed model named `which`, else the only one translating the pair `which` (fr-en).
models::StoredModel find_installed(const std::string& which) {
  const std::vector<models::StoredModel> stored = models::list_stored_models(models::models_home());
  std::vector<models::StoredModel> by_pair;
  for (const models::StoredModel& m : stored) {
    if (m.name == which) return m;
    if (m.source_lang + "-" + m.target_lang == which) by_pair.push_back(m);
  }
  if (by_pair.size() == 1) return by_pair[0];
  if (by_pair.size() > 1) {
    std::string names;
    for (const auto& m : by_pair) names += (names.empty() ? "" : ", ") + m.name;
    throw core::UsageError("several installed models translate " + which + " (" + names + "): name one");
  }
  for (const models::StoredModel& m : bundled_models()) {
    if (m.name == which) throw core::UsageError("'" + which + "' is bundled with nmt and cannot be removed");
  }
  throw core::UsageError("no installed model is named or translates '" + which + "'; see `nmt models list`");
}

// One line per problem with the installed model in `dir`; none when its files are the manifest's.
std::vector<std::string> check_installed(const fs::path& dir) {
  const hub::InstallManifest manifest = hub::read_manifest(dir);
  std::vector<std::string> problems;
  const std::vector<hub::ManifestFile> now = hub::hash_directory(dir);
  for (const hub::ManifestFile& want : manifest.installed_files) {
    auto it = std::find_if(now.begin(), now.end(), [&](const auto& f) { return f.path == want.path; });
    if (it == now.end()) {
      problems.push_back((dir / want.path).string() + ": missing");
    } else if (it->sha256 != want.sha256 || it->size != want.size) {
      problems.push_back((dir / want.path).string() + ": changed since it was installed (sha256 " +
                         it->sha256 + ", install.json says " + want.sha256 + ")");
    }
  }
  for (const hub::ManifestFile& f : now) {
    auto it = std::find_if(manifest.installed_files.begin(), manifest.installed_files.end(),
                           [&](const auto& w) { return w.path == f.path; });
    if (it == manifest.installed_files.end())
      problems.push_back((dir / f.path).string() + ": not installed by nmt");
  }
  return problems;
}

}  // namespace

int run_models_list(const ModelsCommandOptions& o) {
  const std::vector<Row> rows = all_rows();
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows) {
      out.push_back({{"name", r.model.name},
                     {"pair", r.pair},
                     {"source_lang", r.model.source_lang},
                     {"target_lang", r.model.target_lang},
                     {"dir", r.model.dir.lexically_normal().string()},
                     {"size_bytes", r.size},
                     {"dtype", r.dtype},
                     {"source", r.model.bundled ? "bundled" : r.source},
                     {"revision", r.revision},
                     {"installed_at", r.installed_at},
                     {"bundled", r.model.bundled},
                     {"overridden_by", r.winner}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  size_t pair_w = 4, name_w = 4;
  for (const Row& r : rows) {
    pair_w = std::max(pair_w, r.pair.size());
    name_w = std::max(name_w, r.model.name.size());
  }
  std::cout << std::left << std::setw(pair_w + 2) << "PAIR" << std::setw(name_w + 2) << "NAME"
            << std::setw(10) << "SIZE" << std::setw(7) << "DTYPE"
            << "SOURCE\n";
  for (const Row& r : rows) {
    std::cout << std::setw(pair_w + 2) << r.pair << std::setw(name_w + 2) << r.model.name << std::setw(10)
              << format_bytes(r.size, 0) << std::setw(7) << r.dtype << r.source << "\n";
  }
  return kExitOk;
}

int run_models_remove(const ModelsCommandOptions& o) {
  const models::StoredModel model = find_installed(o.which);
  std::random_device device;
  const fs::path doomed =
      model.dir.parent_path() / (".removing-" + model.name + "-" + std::to_string(::getpid()) + "-" +
                                 std::to_string(device() % 1000000000u));
  std::error_code ec;
  fs::rename(model.dir, doomed, ec);  // gone from the listing at once; the files go next
  if (ec) throw core::Error(model.dir.string() + ": cannot remove (" + ec.message() + ")");
  fs::remove_all(doomed, ec);
  if (ec)
    std::cerr << "nmt: warning: " << doomed.string() << ": not all files deleted (" << ec.message() << ")\n";
  std::cout << "removed " << model.name << " (" << model.source_lang << "-" << model.target_lang << ")\n";
  return kExitOk;
}

int run_models_verify(const ModelsCommandOptions& o) {
  std::vector<fs::path> dirs;
  const fs::path home = models::models_home();
  std::error_code ec;
  if (!o.which.empty()) {
    dirs.push_back(find_installed(o.which).dir);
  } else {
    for (const auto& entry : fs::directory_iterator(home, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.empty() && name[0] != '.' && entry.is_directory(ec)) dirs.push_back(entry.path());
    }
    std::sort(dirs.begin(), dirs.end());
  }
  int bad = 0;
  for (const fs::path& dir : dirs) {
    std::vector<std::string> problems;
    try {
      problems = check_installed(dir);
      models::describe_model_dir(dir, false);
    } catch (const models::ModelError& e) {
      problems.push_back(e.what());
    }
    for (const std::string& p : problems) std::cerr << "nmt: error: " << p << "\n";
    std::cout << dir.filename().string() << ": " << (problems.empty() ? "ok" : "FAILED") << "\n";
    bad += problems.empty() ? 0 : 1;
  }
  if (dirs.empty()) std::cout << "no installed models in " << home.string() << "\n";
  return bad == 0 ? kExitOk : kExitModelError;
}

}  // namespace cli
