#include "serve/model_set.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/error.h"
#include "front/language_codes.h"
#include "front/translate_flags.h"
#include "serve/api_error.h"

namespace serve {

ModelSet::ModelSet(const std::vector<std::string>& model_dirs) {
  for (const std::string& dir : model_dirs) {
    translators_.push_back(std::make_shared<const pipeline::Translator>(dir));
    add_pairs(*translators_.back(), dir, "");
  }
  refuse_shared_pairs();
}

ModelSet::ModelSet(const front::ModelCatalog& catalog, const std::string& pivot, uint64_t memory_budget)
    : cache_(std::make_unique<ModelCache>(memory_budget)) {
  for (const auto& [source, target] : catalog.reachable(pivot)) {
    const std::optional<front::ModelRoute> route = catalog.route(source, target, pivot);
    LanguagePair pair;
    pair.source = source;
    pair.target = target;
    pair.model_dir = route->legs.back().dir.string();
    pair.route = route->describe();
    pairs_.push_back(std::move(pair));
    routes_.push_back(*route);
  }
}

LanguagePair ModelSet::use(const LanguagePair& pair) const {
  if (!cache_) return pair;
  const size_t index = static_cast<size_t>(&pair - pairs_.data());
  ModelCache::Loaded loaded;
  try {
    loaded = cache_->use(index, routes_.at(index));
  } catch (const std::exception& e) {
    throw ApiError(500,
                   "cannot load " + pair.route + " for " + pair.source + "-" + pair.target + ": " + e.what());
  }
  LanguagePair copy = pair;
  copy.translator = loaded.translator;
  copy.options = std::move(loaded.options);
  copy.lease = std::move(loaded.lease);
  return copy;
}

void ModelSet::add_pairs(const pipeline::Translator& t, const std::string& dir, const std::string& route) {
  // The options of `nmt translate -m DIR` without flags, so answers equal the CLI's.
  const pipeline::TranslateOptions defaults = front::resolve_translate_flags(front::TranslateFlags{}, t);
  const models::ModelDescription& d = t.model().description();
  if (t.language_tags().empty()) {
    pairs_.push_back({d.source_lang, d.target_lang, &t, dir, defaults, route, nullptr});
    return;
  }
  for (const std::string& tag : t.language_tags()) {
    LanguagePair pair{d.source_lang, tag, &t, dir, defaults, route, nullptr};
    pair.options.target_lang = tag;
    pairs_.push_back(std::move(pair));
  }
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
  // Then the codes as people also write them: "deu", "de-DE" for a model's "de".
  for (const LanguagePair& p : pairs_) {
    if ((same_code(source, "auto") || (!p.source.empty() && front::same_language_code(p.source, source))) &&
        !p.target.empty() && front::same_language_code(p.target, target))
      return &p;
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

std::string language_name(const std::string& code) { return front::language_name(code); }

}  // namespace serve
