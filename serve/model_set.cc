#include "serve/model_set.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/error.h"
#include "front/translate_flags.h"

namespace serve {

ModelSet::ModelSet(const std::vector<std::string>& model_dirs) {
  for (const std::string& dir : model_dirs) {
    translators_.push_back(std::make_unique<pipeline::Translator>(dir));
    const pipeline::Translator& t = *translators_.back();
    // The options of `nmt translate -m DIR` without flags, so answers equal the CLI's.
    const pipeline::TranslateOptions defaults = front::resolve_translate_flags(front::TranslateFlags{}, t);
    const models::ModelDescription& d = t.model().description();
    if (t.language_tags().empty()) {
      pairs_.push_back({d.source_lang, d.target_lang, &t, dir, defaults});
      continue;
    }
    for (const std::string& tag : t.language_tags()) {
      LanguagePair pair{d.source_lang, tag, &t, dir, defaults};
      pair.options.target_lang = tag;
      pairs_.push_back(std::move(pair));
    }
  }
  refuse_shared_pairs();
}

// Two models of one pair would leave a request no way to name the one it means, and /languages would list
// the pair twice: the server refuses to start rather than hide a model.
void ModelSet::refuse_shared_pairs() const {
  for (size_t i = 0; i < pairs_.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const LanguagePair &a = pairs_[j], &b = pairs_[i];
      if (a.source != b.source || a.target != b.target) continue;
      throw core::UsageError("-m " + a.model_dir + " and -m " + b.model_dir + " both translate " + a.source +
                             " to " + a.target + ": serve one model per language pair");
    }
  }
}

const LanguagePair* ModelSet::find(const std::string& source, const std::string& target) const {
  for (const LanguagePair& p : pairs_) {
    if ((same_code(source, "auto") || same_code(p.source, source)) && same_code(p.target, target)) return &p;
  }
  return nullptr;
}

bool same_code(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](unsigned char x, unsigned char y) { return std::tolower(x) == std::tolower(y); });
}

nlohmann::json ModelSet::languages_json() const {
  std::vector<std::string> codes;  // sources first, then the languages only translated into
  std::map<std::string, std::vector<std::string>> targets;
  for (const LanguagePair& p : pairs_) {
    if (targets.count(p.source) == 0) codes.push_back(p.source);
    targets[p.source].push_back(p.target);
  }
  for (const LanguagePair& p : pairs_) {
    if (targets.count(p.target) == 0) codes.push_back(p.target);
    targets[p.target];
  }
  nlohmann::json languages = nlohmann::json::array();
  for (const std::string& code : codes) {
    languages.push_back({{"code", code}, {"name", language_name(code)}, {"targets", targets[code]}});
  }
  return languages;
}

std::string language_name(const std::string& code) {
  static const std::map<std::string, std::string> kNames = {
      {"ar", "Arabic"},     {"cs", "Czech"},    {"da", "Danish"},    {"de", "German"},   {"el", "Greek"},
      {"en", "English"},    {"es", "Spanish"},  {"fi", "Finnish"},   {"fr", "French"},   {"hu", "Hungarian"},
      {"it", "Italian"},    {"ja", "Japanese"}, {"ko", "Korean"},    {"nl", "Dutch"},    {"pl", "Polish"},
      {"pt", "Portuguese"}, {"ro", "Romanian"}, {"ru", "Russian"},   {"sv", "Swedish"},  {"tr", "Turkish"},
      {"uk", "Ukrainian"},  {"zh", "Chinese"},  {"nb", "Norwegian"}, {"et", "Estonian"}, {"bg", "Bulgarian"}};
  const auto found = kNames.find(code);
  return found == kNames.end() ? code : found->second;
}

}  // namespace serve
