#include "pipeline/pivot_translator.h"

#include <algorithm>
#include <utility>

namespace pipeline {

PivotTranslator::PivotTranslator(std::shared_ptr<const Translator> first, TranslateOptions first_options,
                                 std::shared_ptr<const Translator> second)
    : Translator(*second, ShareModel{}),
      first_(std::move(first)),
      first_options_(std::move(first_options)),
      second_(std::move(second)) {}

std::vector<Translation> PivotTranslator::translate(const std::vector<std::string>& lines,
                                                    const TranslateOptions& options,
                                                    std::vector<TranslateWarning>* warnings,
                                                    const std::vector<LineControls>* controls) const {
  TranslateOptions leg1 = first_options_;
  leg1.n_best = 1;
  leg1.word_scores = false;
  leg1.alignment = options.alignment;
  leg1.alignment_layer = options.alignment_layer;
  leg1.first_line = options.first_line;
  leg1.progress = nullptr;  // the bar follows the leg the reader sees
  std::vector<TranslateWarning> leg1_warnings;
  const std::vector<Translation> pivot = first_->translate(lines, leg1, &leg1_warnings);
  if (warnings) {
    for (TranslateWarning& w : leg1_warnings) {
      w.message = "pivot's first leg: " + w.message;
      warnings->push_back(std::move(w));
    }
  }
  std::vector<std::string> pivot_lines;
  pivot_lines.reserve(pivot.size());
  for (const Translation& t : pivot) pivot_lines.push_back(t.texts.empty() ? std::string() : t.texts[0]);
  const std::vector<Translation> out = Translator::translate(pivot_lines, options, warnings, controls);
  std::vector<Translation> composed;
  composed.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) composed.push_back(compose_pivot(pivot[i], out[i]));
  return composed;
}

Translation compose_pivot(const Translation& first, const Translation& second) {
  Translation t = second;
  t.detected_language = first.detected_language;
  const float first_confidence = first.confidences.empty() ? 1.0f : first.confidences[0];
  for (float& c : t.confidences) c *= first_confidence;
  for (std::vector<std::string>& flags : t.flags) {
    std::vector<std::string> merged = first.flags.empty() ? std::vector<std::string>() : first.flags[0];
    for (const std::string& f : flags) {
      if (std::find(merged.begin(), merged.end(), f) == merged.end()) merged.push_back(f);
    }
    flags = std::move(merged);
  }
  if (!t.alignments.empty()) {
    std::vector<int> source_of;  // pivot word -> source word, -1 for none
    if (!first.alignments.empty()) {
      for (const WordLink& link : first.alignments[0]) {
        if (link.target < 0) continue;
        if (static_cast<size_t>(link.target) >= source_of.size()) source_of.resize(link.target + 1, -1);
        source_of[link.target] = link.source;
      }
    }
    for (std::vector<WordLink>& links : t.alignments) {
      std::vector<WordLink> composed;
      for (const WordLink& link : links) {
        if (link.source < 0 || static_cast<size_t>(link.source) >= source_of.size()) continue;
        if (source_of[link.source] < 0) continue;
        composed.push_back({source_of[link.source], link.target});
      }
      links = std::move(composed);
    }
  }
  return t;
}

}  // namespace pipeline
