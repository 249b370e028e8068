#include "pipeline/hypothesis_judge.h"

#include <algorithm>

#include "pipeline/language_identifier.h"
#include "pipeline/recasing.h"
#include "pipeline/sentence_checks.h"

namespace pipeline {

std::vector<std::string> hypothesis_flags(const std::vector<const core::Hypothesis*>& parts) {
  std::vector<std::string> flags;
  if (std::any_of(parts.begin(), parts.end(), [](const core::Hypothesis* h) { return h->length_limit; }))
    flags.push_back("length-limit");
  if (std::any_of(parts.begin(), parts.end(),
                  [](const core::Hypothesis* h) { return h->constraints_missed; }))
    flags.push_back("glossary-miss");
  return flags;
}

void detect_line_language(Translation& t, const JudgedLine& line) {
  t.detected_language = identify_language(line.model_text);
}

void judge_last(Translation& t, const JudgedLine& line, const std::vector<const core::Hypothesis*>& parts,
                const TranslateOptions& o) {
  std::vector<float> token_scores;
  for (const core::Hypothesis* h : parts)
    token_scores.insert(token_scores.end(), h->token_scores.begin(), h->token_scores.end());
  const float confidence = parts.empty() ? 1.0f : sentence_confidence(token_scores);
  t.confidences.push_back(confidence);
  std::vector<std::string>& flags = t.flags.back();
  std::string& text = t.texts.back();
  // Judged as the model wrote it: a language identifier knows ordinary casing best.
  const std::string output_language = identify_language(text);
  t.output_languages.push_back(output_language);
  const bool recased = line.model_text != line.source;
  if (recased) text = upper_case(text, line.target_lang);
  const std::vector<std::string> failures = failure_flags(line.source, text, t.ids.back());
  flags.insert(flags.end(), failures.begin(), failures.end());
  const bool wrong_input = !t.detected_language.empty() && can_identify(line.source_lang) &&
                           !same_language(t.detected_language, line.source_lang);
  const bool wrong_output = !output_language.empty() && can_identify(line.target_lang) &&
                            !same_language(output_language, line.target_lang);
  if (wrong_input || wrong_output) flags.push_back("wrong-language");
  if (recased) flags.push_back("recased");
  if (confidence >= o.min_confidence) return;
  flags.push_back("low-confidence");
  const LowConfidenceAction action = low_confidence_action(o.on_low_confidence);
  if (action == LowConfidenceAction::kKeep) return;
  text = low_confidence_text(action, line.source, text);
  if (!t.alignments.empty()) {
    t.alignments.back() = low_confidence_links(action, line.source, t.alignments.back());
  }
}

}  // namespace pipeline
