// The models `nmt serve` loads, once each at start, and the language pairs they serve: those of -m, or
// every installed model's and the pairs they reach through a pivot language.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "front/model_catalog.h"
#include "pipeline/translator.h"

namespace serve {

// One language pair: a model and the options `nmt translate -m DIR` would use without flags (a
// multilingual model serves one pair per target tag, its options naming the tag).
struct LanguagePair {
  std::string source;  // the model's source_lang ("" when model.json does not say)
  std::string target;
  const pipeline::Translator* translator = nullptr;
  std::string model_dir;  // the model's, or the second leg's through a pivot
  pipeline::TranslateOptions options;
  std::string route;  // "" for a model given by -m; else ModelRoute::describe() ("fr-en (NAME) then ...")
};

class ModelSet {
 public:
  // Loads every directory; throws (models::ModelError, core::UsageError) as `nmt translate` would, and
  // core::UsageError when two models serve the same pair.
  explicit ModelSet(const std::vector<std::string>& model_dirs);
  // Every model of `catalog` that is preferred for its pair (an installed one before the bundled one),
  // and with a pivot ("" for none) each pair reachable through it, both legs shared with the direct
  // pairs. A model that fails to load is left out with a warning in `warnings`; the others serve.
  ModelSet(const front::ModelCatalog& catalog, const std::string& pivot, std::vector<std::string>& warnings);

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
};

// Whether two language codes are the same, case aside.
bool same_code(const std::string& a, const std::string& b);

// "German" for "de"; the code itself for a language the table lacks.
std::string language_name(const std::string& code);

}  // namespace serve
