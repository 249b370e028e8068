// Installed models: where they live and which language pair each translates. `nmt models` writes this
// store; `--from/--to`, `nmt serve` and the library read it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace models {

// The store's directory comes from this variable, else $XDG_DATA_HOME/nmt/models, else
// ~/.local/share/nmt/models.
constexpr const char* kModelsDirEnv = "NMT_MODELS_DIR";
// What `nmt models install` records next to an installed checkpoint (languages, source, revision, the
// sha256 of every input file, dtype, size, date); a bundled model has none.
constexpr const char* kInstallManifestName = "install.json";

struct StoredModel {
  std::string name;  // the directory's name in the store, or the bundled model's
  std::filesystem::path dir;
  std::string source_lang;  // model.json's tags, "" when it does not say
  std::string target_lang;
  bool bundled = false;  // shipped with nmt, not installed into the store
};

// $NMT_MODELS_DIR, $XDG_DATA_HOME/nmt/models or ~/.local/share/nmt/models; "" when none can be named
// (no HOME). The directory need not exist.
std::filesystem::path models_home();

// A checkpoint directory's name and languages, from its model.json; throws ModelError naming the file
// when it is missing or malformed.
StoredModel describe_model_dir(const std::filesystem::path& dir, bool bundled);

// Every model in the store, sorted by name: each subdirectory holding a model.json. Entries whose name
// starts with '.' are installs in progress and skipped; an unreadable model.json is skipped too, so one
// damaged install never hides the others (`nmt models verify` reports it). A missing store is empty.
std::vector<StoredModel> list_stored_models(const std::filesystem::path& home);

}  // namespace models
