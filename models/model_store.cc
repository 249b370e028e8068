#include "models/model_store.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "models/model_config.h"
#include "models/model_error.h"

namespace models {

namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

}  // namespace

std::filesystem::path models_home() {
  if (const std::string dir = environment(kModelsDirEnv); !dir.empty()) return dir;
  if (const std::string xdg = environment("XDG_DATA_HOME"); !xdg.empty()) {
    return std::filesystem::path(xdg) / "nmt" / "models";
  }
  if (const std::string home = environment("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".local" / "share" / "nmt" / "models";
  }
  return {};
}

StoredModel describe_model_dir(const std::filesystem::path& dir, bool bundled) {
  const std::filesystem::path json_path = dir / "model.json";
  std::ifstream in(json_path, std::ios::binary);
  if (!in) throw ModelError(json_path.string() + ": cannot open the model description");
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(json_path.string() + ": not valid JSON (" + e.what() + ")");
  }
  const ModelDescription description = parse_description(meta, json_path.string());
  StoredModel model;
  model.name = dir.filename().string();
  if (model.name.empty()) model.name = dir.parent_path().filename().string();
  model.dir = dir;
  model.source_lang = description.source_lang;
  model.target_lang = description.target_lang;
  model.bundled = bundled;
  return model;
}

std::vector<StoredModel> list_stored_models(const std::filesystem::path& home) {
  std::vector<StoredModel> models;
  std::error_code ec;
  if (home.empty() || !std::filesystem::is_directory(home, ec)) return models;
  for (const auto& entry : std::filesystem::directory_iterator(home, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code stat_error;
    if (!std::filesystem::is_regular_file(entry.path() / "model.json", stat_error)) continue;
    try {
      models.push_back(describe_model_dir(entry.path(), false));
    } catch (const ModelError&) {
      continue;  // one damaged install must not hide the others
    }
  }
  std::sort(models.begin(), models.end(),
            [](const StoredModel& a, const StoredModel& b) { return a.name < b.name; });
  return models;
}

}  // namespace models
