// The models a command can choose from by language: those installed in the store (models/model_store.h)
// and the bundled ones, and the route from a source language to a target language, direct or through a
// pivot language. Both front ends choose here, so `nmt translate --from/--to` and `nmt serve` agree.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "front/translate_flags.h"
#include "models/model_store.h"
#include "pipeline/translator.h"

namespace front {

// The pivot language when none is named (`--pivot`): OPUS-MT's models reach most languages from English.
constexpr const char* kDefaultPivot = "en";

// One model, or two through a pivot language (legs[0]: source -> pivot, legs[1]: pivot -> target).
struct ModelRoute {
  std::vector<models::StoredModel> legs;
  bool through_pivot() const { return legs.size() == 2; }
  // "fr-en (NAME)" or "fr-en (NAME) then en-de (NAME)".
  std::string describe() const;
};

class ModelCatalog {
 public:
  // The store's models (models::models_home()) and the routed bundled models (kRoutedBundledModels) there
  // are.
  static ModelCatalog load();
  // `models` in order of preference: an installed model before a bundled one of the same pair.
  explicit ModelCatalog(std::vector<models::StoredModel> models);

  // Every model, installed ones first (by name), then the bundled ones.
  const std::vector<models::StoredModel>& models() const { return models_; }

  // The model that translates source -> target itself (codes normalized: "deu", "de-DE"); an installed
  // model wins over the bundled one. nullptr: none.
  const models::StoredModel* direct(const std::string& source, const std::string& target) const;
  // Whether `model` is the one direct() picks for its pair (false: another model of the pair wins).
  bool preferred(const models::StoredModel& model) const;

  // The direct model, else (pivot not "") source -> pivot then pivot -> target; nullopt when neither.
  std::optional<ModelRoute> route(const std::string& source, const std::string& target,
                                  const std::string& pivot) const;
  // route(), or a core::UsageError that names the pairs there are and the command that would add one.
  ModelRoute require_route(const std::string& source, const std::string& target,
                           const std::string& pivot) const;

  // Every pair route() answers, sorted by source then target: direct pairs, and with a pivot the pairs it
  // joins (never X -> X).
  std::vector<std::pair<std::string, std::string>> reachable(const std::string& pivot) const;

 private:
  std::vector<models::StoredModel> models_;
};

// "nmt models install Helsinki-NLP/opus-mt-fr-de": the hub repository OPUS-MT names the pair by.
std::string install_command(const std::string& source, const std::string& target);

// Loads a model directory's translator; a server passes one that shares models between its pairs.
using ModelLoader = std::function<std::shared_ptr<const pipeline::Translator>(const std::string& dir)>;

// The translator for a route: the model itself, or a pipeline::PivotTranslator whose first leg's
// options are `flags` resolved against that leg's model (as `nmt translate -m LEG1` would).
std::shared_ptr<const pipeline::Translator> load_route(const ModelRoute& route, const TranslateFlags& flags,
                                                       const ModelLoader& load = {});

}  // namespace front
