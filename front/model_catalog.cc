#include "front/model_catalog.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "front/language_codes.h"
#include "front/model_path.h"
#include "models/model_error.h"
#include "pipeline/pivot_translator.h"

namespace front {

namespace {

bool translates(const models::StoredModel& m, const std::string& source, const std::string& target) {
  return !m.source_lang.empty() && !m.target_lang.empty() && same_language_code(m.source_lang, source) &&
         same_language_code(m.target_lang, target);
}

std::string pair_name(const models::StoredModel& m) {
  return normalize_language(m.source_lang) + "-" + normalize_language(m.target_lang);
}

}  // namespace

std::string ModelRoute::describe() const {
  std::string text;
  for (const models::StoredModel& leg : legs) {
    text += (text.empty() ? "" : " then ") + pair_name(leg) + " (" + leg.name + ")";
  }
  return text;
}

ModelCatalog ModelCatalog::load() {
  std::vector<models::StoredModel> found = models::list_stored_models(models::models_home());
  for (const char* name : kRoutedBundledModels) {
    const std::filesystem::path bundled = bundled_model_dir(name);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(bundled / "model.json", ec)) continue;
    try {
      found.push_back(models::describe_model_dir(bundled, true));
    } catch (const models::ModelError&) {
      // a damaged bundled model is reported when -m names it; routing goes on without it
    }
  }
  return ModelCatalog(std::move(found));
}

ModelCatalog::ModelCatalog(std::vector<models::StoredModel> models) : models_(std::move(models)) {
  std::stable_sort(
      models_.begin(), models_.end(),
      [](const models::StoredModel& a, const models::StoredModel& b) { return !a.bundled && b.bundled; });
}

const models::StoredModel* ModelCatalog::direct(const std::string& source, const std::string& target) const {
  for (const models::StoredModel& m : models_) {
    if (translates(m, source, target)) return &m;
  }
  return nullptr;
}

bool ModelCatalog::preferred(const models::StoredModel& model) const {
  return direct(model.source_lang, model.target_lang) == &model;
}

std::optional<ModelRoute> ModelCatalog::route(const std::string& source, const std::string& target,
                                              const std::string& pivot) const {
  if (const models::StoredModel* m = direct(source, target)) return ModelRoute{{*m}};
  if (pivot.empty() || same_language_code(pivot, source) || same_language_code(pivot, target))
    return std::nullopt;
  const models::StoredModel* first = direct(source, pivot);
  const models::StoredModel* second = direct(pivot, target);
  if (!first || !second) return std::nullopt;
  return ModelRoute{{*first, *second}};
}

ModelRoute ModelCatalog::require_route(const std::string& source, const std::string& target,
                                       const std::string& pivot) const {
  if (std::optional<ModelRoute> found = route(source, target, pivot)) return *found;
  const std::string from = normalize_language(source), to = normalize_language(target);
  std::string pairs;
  for (const auto& [s, t] : reachable(pivot)) pairs += (pairs.empty() ? "" : ", ") + s + "-" + t;
  throw core::UsageError("no model translates " + from + " to " + to +
                         (pivot.empty() ? "" : " (directly or through " + normalize_language(pivot) + ")") +
                         "; available pairs: " + (pairs.empty() ? "none" : pairs) +
                         "; install one with: " + install_command(from, to));
}

std::vector<std::pair<std::string, std::string>> ModelCatalog::reachable(const std::string& pivot) const {
  std::set<std::pair<std::string, std::string>> pairs;
  std::set<std::string> languages;
  for (const models::StoredModel& m : models_) {
    if (m.source_lang.empty() || m.target_lang.empty()) continue;
    pairs.insert({normalize_language(m.source_lang), normalize_language(m.target_lang)});
    languages.insert(normalize_language(m.source_lang));
    languages.insert(normalize_language(m.target_lang));
  }
  if (!pivot.empty()) {
    for (const std::string& s : languages) {
      for (const std::string& t : languages) {
        if (s != t && route(s, t, pivot)) pairs.insert({s, t});
      }
    }
  }
  return {pairs.begin(), pairs.end()};
}

std::string install_command(const std::string& source, const std::string& target) {
  return "nmt models install Helsinki-NLP/opus-mt-" + normalize_language(source) + "-" +
         normalize_language(target);
}

std::shared_ptr<const pipeline::Translator> load_route(const ModelRoute& route, const TranslateFlags& flags,
                                                       const ModelLoader& load) {
  const auto load_dir = [&load](const models::StoredModel& m) -> std::shared_ptr<const pipeline::Translator> {
    if (load) return load(m.dir.string());
    return std::make_shared<const pipeline::Translator>(m.dir.string());
  };
  if (!route.through_pivot()) return load_dir(route.legs.at(0));
  std::shared_ptr<const pipeline::Translator> first = load_dir(route.legs[0]);
  pipeline::TranslateOptions first_options = resolve_translate_flags(flags, *first);
  return std::make_shared<const pipeline::PivotTranslator>(first, std::move(first_options),
                                                           load_dir(route.legs[1]));
}

}  // namespace front
