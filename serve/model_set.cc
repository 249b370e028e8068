#include "serve/model_set.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/error.h"
#include "front/language_codes.h"
#include "front/translate_flags.h"

namespace serve {

ModelSet::ModelSet(const std::vector<std::string>& model_dirs) {
  for (const std::string& dir : model_dirs) {
    translators_.push_back(std::make_shared<const pipeline::Translator>(dir));
    add_pairs(*translators_.back(), dir, "");
  }
  refuse_shared_pairs();
}

ModelSet::ModelSet(const front::ModelCatalog& catalog, const std::string& pivot,
                   std::vector<std::string>& warnings) {
  std::map<std::string, std::shared_ptr<const pipeline::Translator>> loaded;  // by directory
  std::set<std::string> failed;
  const front::ModelLoader load = [&](const std::string& dir) {
    auto found = loaded.find(dir);
    if (found != loaded.end()) return found->second;
    auto translator = std::make_shared<const pipeline::Translator>(dir);
    loaded[dir] = translator;
    return std::shared_ptr<const pipeline::Translator>(translator);
  };
  for (const auto& [source, target] : catalog.reachable(pivot)) {
    const std::optional<front::ModelRoute> route = catalog.route(source, target, pivot);
    bool skip = false;
    for (const models::StoredModel& leg : route->legs) skip = skip || failed.count(leg.dir.string()) > 0;
    if (skip) continue;
    try {
      translators_.push_back(front::load_route(*route, front::TranslateFlags{}, load));
    } catch (const std::exception& e) {  // one damaged model must not take the others down
      warnings.push_back(route->describe() + ": " + e.what());
      for (const models::StoredModel& leg : route->legs) {
        if (loaded.count(leg.dir.string()) == 0) failed.insert(leg.dir.string());
      }
      continue;
    }
    const size_t first = pairs_.size();
    add_pairs(*translators_.back(), route->legs.back().dir.string(), route->describe());
    for (size_t i = first; i < pairs_.size(); ++i) {  // a pair by the codes asked, not the model's spelling
      pairs_[i].source = source;
      if (!route->through_pivot() || translators_.back()->language_tags().empty()) pairs_[i].target = target;
    }
  }
  refuse_shared_pairs();
}

void ModelSet::add_pairs(const pipeline::Translator& t, const std::string& dir, const std::string& route) {
  // The options of `nmt translate -m DIR` without flags, so answers equal the CLI's.
  const pipeline::TranslateOptions defaults = front::resolve_translate_flags(front::TranslateFlags{}, t);
  const models::ModelDescription& d = t.model().description();
  if (t.language_tags().empty()) {
    pairs_.push_back({d.source_lang, d.target_lang, &t, dir, defaults, route});
    return;
  }
  for (const std::string& tag : t.language_tags()) {
    LanguagePair pair{d.source_lang, tag, &t, dir, defaults, route};
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
