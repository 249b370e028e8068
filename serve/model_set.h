// The models `nmt serve` serves and their language pairs: those of -m, loaded at start, or every installed
// model's and the pairs they reach through a pivot language, loaded on first use (serve/model_cache.h).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "front/model_catalog.h"
#include "pipeline/translator.h"
#include "serve/model_cache.h"

namespace serve {

// One language pair: a model and the options `nmt translate -m DIR` would use without flags (a
// multilingual model serves one pair per target tag, its options naming the tag).
struct LanguagePair {
  std::string source;  // the model's source_lang ("" when model.json does not say)
  std::string target;
  // An installed model's pair has these once loaded: ModelSet::use gives a loaded copy.
  const pipeline::Translator* translator = nullptr;
  std::string model_dir;  // the model's, or the second leg's through a pivot
  pipeline::TranslateOptions options;
  std::string route;  // "" for a model given by -m; else ModelRoute::describe() ("fr-en (NAME) then ...")
  std::shared_ptr<const void> lease;  // a loaded copy's: its models stay loaded while it lives
};

class ModelSet {
 public:
  // Loads every directory; throws (models::ModelError, core::UsageError) as `nmt translate` would, and
  // core::UsageError when two models serve the same pair.
  explicit ModelSet(const std::vector<std::string>& model_dirs);
  // Every model of `catalog` that is preferred for its pair (an installed one before the bundled one),
  // and with a pivot ("" for none) each pair reachable through it, both legs shared with the direct
  // pairs. Nothing loads here: each model on the first request that needs it, within `memory_budget`.
  ModelSet(const front::ModelCatalog& catalog, const std::string& pivot, uint64_t memory_budget);
  ModelSet(const ModelSet&) = delete;
  ModelSet& operator=(const ModelSet&) = delete;

  // `pair` (one of pairs()) with its translator and options, loaded if it was not; ApiError 500 naming
  // the model when it cannot load (the other pairs keep working).
  LanguagePair use(const LanguagePair& pair) const;

  // The pair for source -> target, codes in any case ("EN") and spelling ("eng", "en-US"); source "auto"
  // takes the first pair into `target`. nullptr: none.
  const LanguagePair* find(const std::string& source, const std::string& target) const;
  const std::vector<LanguagePair>& pairs() const { return pairs_; }

  // GET /languages in LibreTranslate's shape: [{"code", "name", "targets": [...]}], one per language
  // served, source or target (a language only translated into has no targets).
  nlohmann::json languages_json() const;

 private:
  void refuse_shared_pairs() const;
  // The pairs `translator` serves (one per target tag of a multilingual model).
  void add_pairs(const pipeline::Translator& translator, const std::string& dir, const std::string& route);

  std::vector<std::shared_ptr<const pipeline::Translator>> translators_;
  std::vector<LanguagePair> pairs_;
  std::vector<front::ModelRoute> routes_;  // installed models: one per pair
  std::unique_ptr<ModelCache> cache_;      // installed models: null for -m
};

// Whether two language codes are the same, case aside.
bool same_code(const std::string& a, const std::string& b);

// "German" for "de"; the code itself for a language the table lacks.
std::string language_name(const std::string& code);

}  // namespace serve
