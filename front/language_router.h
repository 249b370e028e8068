// `nmt translate --to LANG` without --from: each line goes to the model for its own language, told by
// CLD2 (pipeline/language_identifier.h), a line too short to tell taking the language of the lines
// translated with it. A line whose language has no model into LANG (or cannot be told) is copied as it is
// and flagged "unrouted"; a line already in LANG is copied unflagged.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "front/model_catalog.h"
#include "front/translate_flags.h"
#include "pipeline/translator.h"

namespace front {

class LanguageRouter : public pipeline::Translator {
 public:
  // `base`: a model into `target`, whose options and tokenizer stand for the router's (its defaults are
  // what --to alone resolves flags against); the others load on their first line.
  LanguageRouter(const ModelCatalog& catalog, std::string target, std::string pivot, TranslateFlags flags,
                 std::shared_ptr<const pipeline::Translator> base);

  // Lines grouped by language, each group through its route with `flags` resolved against its model (the
  // window's first line and progress kept), then put back in order; warnings name the unrouted lines.
  std::vector<pipeline::Translation> translate(
      const std::vector<std::string>& lines, const pipeline::TranslateOptions& options,
      std::vector<pipeline::TranslateWarning>* warnings = nullptr,
      const std::vector<pipeline::LineControls>* controls = nullptr) const override;

 private:
  struct Route {
    std::shared_ptr<const pipeline::Translator> translator;  // null: no model from that language
    pipeline::TranslateOptions options;
  };
  const Route& route_for(const std::string& language) const;

  const ModelCatalog& catalog_;
  const std::string target_;
  const std::string pivot_;
  const TranslateFlags flags_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Route> routes_;  // by normalized source language
};

// The first model of `catalog` into `target`, the router's base; a core::UsageError naming the install
// command when there is none.
ModelRoute route_into(const ModelCatalog& catalog, const std::string& target);

}  // namespace front
