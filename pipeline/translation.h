// What translating one line gives: its hypotheses with their scores, alignments, confidences and flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/word_alignment.h"

namespace pipeline {

struct Translation {
  std::vector<std::string> texts;  // n_best, best first ("" for empty input)
  std::vector<float> scores;
  std::vector<std::vector<int32_t>> ids;
  // With TranslateOptions::alignment, one per hypothesis: every word of its text linked to one word of
  // the line (whitespace-separated words, 0-based), in target order.
  std::vector<std::vector<WordLink>> alignments;
  std::vector<float> raw_scores;  // sum of the log-probabilities (for a line of several sentences, theirs)
  // Per hypothesis, the short codes of what went wrong: "length-limit" (a sentence ended at its max length,
  // not by the model's EOS), failure_flags' codes, "wrong-language" (the line is not in the model's source
  // language or the hypothesis not in its target language), "recased" (an ALL-CAPS line, translated in
  // sentence case and set back in capitals), "low-confidence" (below min_confidence).
  std::vector<std::vector<std::string>> flags;
  // The line's language as identified (pipeline/language_identifier.h); "" when it cannot be told.
  std::string detected_language;
  // Per hypothesis, its language as identified; "" when it cannot be told.
  std::vector<std::string> output_languages;
  // Per hypothesis, sentence_confidence of all its tokens in [0, 1]; 1 for a blank line, 0 with no score.
  std::vector<float> confidences;
  // With TranslateOptions::word_scores, per hypothesis: one log-probability per word of its text
  // (whitespace-separated), the sum of its pieces' (EOS's counts in the last word).
  std::vector<std::vector<float>> word_scores;
};

}  // namespace pipeline
