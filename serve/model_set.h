// The models `nmt serve` loads, once each at start, and the language pairs they serve.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/translator.h"

namespace serve {

// One language pair: a model and the options `nmt translate -m DIR` would use without flags (a
// multilingual model serves one pair per target tag, its options naming the tag).
struct LanguagePair {
  std::string source;  // the model's source_lang ("" when model.json does not say)
  std::string target;
  const pipeline::Translator* translator = nullptr;
  std::string model_dir;
  pipeline::TranslateOptions options;
};

class ModelSet {
 public:
  // Loads every directory; throws (models::ModelError, core::UsageError) as `nmt translate` would, and
  // core::UsageError when two models serve the same pair.
  explicit ModelSet(const std::vector<std::string>& model_dirs);

  // The pair for source -> target, codes in any case ("EN"); source "auto" takes the first pair into
  // `target`. nullptr: none.
  const LanguagePair* find(const std::string& source, const std::string& target) const;
  const std::vector<LanguagePair>& pairs() const { return pairs_; }

  // GET /languages in LibreTranslate's shape: [{"code", "name", "targets": [...]}], one per language
  // served, source or target (a language only translated into has no targets).
  nlohmann::json languages_json() const;

 private:
  void refuse_shared_pairs() const;

  std::vector<std::unique_ptr<pipeline::Translator>> translators_;
  std::vector<LanguagePair> pairs_;
};

// Whether two language codes are the same, case aside.
bool same_code(const std::string& a, const std::string& b);

// "German" for "de"; the code itself for a language the table lacks.
std::string language_name(const std::string& code);

}  // namespace serve
