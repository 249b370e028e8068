// Translation through a pivot language (fr -> en -> de) when no model translates a pair directly: each line
// by the first leg's model, then its best translation by the second's, as
// `nmt translate -m FR_EN | nmt translate -m EN_DE` gives it, line by line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/translator.h"

namespace pipeline {

// The second leg for everything but translate(): its model, tokenizer, defaults and checks, so options
// resolve against it and every front end takes the pivot as any Translator. Both legs' models are shared
// (a server's direct pairs use them too).
class PivotTranslator : public Translator {
 public:
  // `first_options`: resolved against `first` as the same flags would be for it alone.
  PivotTranslator(std::shared_ptr<const Translator> first, TranslateOptions first_options,
                  std::shared_ptr<const Translator> second);

  // Leg 1 decodes the best translation only (n-best, word scores and controls belong to leg 2), with
  // alignments when `options` asks for them and the same first line for sampling streams; leg 1's
  // warnings come first, each saying so. Each Translation is compose_pivot's.
  std::vector<Translation> translate(const std::vector<std::string>& lines, const TranslateOptions& options,
                                     std::vector<TranslateWarning>* warnings = nullptr,
                                     const std::vector<LineControls>* controls = nullptr) const override;

  const Translator& first_leg() const { return *first_; }
  const TranslateOptions& first_options() const { return first_options_; }

 private:
  std::shared_ptr<const Translator> first_;
  TranslateOptions first_options_;
  std::shared_ptr<const Translator> second_;
};

// One line through both legs: the second leg's hypotheses (texts, scores, ids, word scores, n-best), the
// line's detected language from the first, each confidence the product of the two, each hypothesis's flags
// the first leg's then the second's (once each), and alignments composed (source word -> pivot word ->
// target word; a target word whose pivot word has no source word is left out).
Translation compose_pivot(const Translation& first, const Translation& second);

}  // namespace pipeline
