// What a batch run can act on per translation: a confidence in [0, 1] and short codes of known failure
// modes (docs/search.md "Confidence and flags").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/word_alignment.h"

namespace pipeline {

// exp of the mean log-probability of the generated tokens (EOS included): the geometric mean of the
// tokens' probabilities. No tokens: 0.
float sentence_confidence(const std::vector<float>& token_scores);

// The codes, in this order, of what looks wrong with `target` (token ids `target_ids`, EOS excluded) as a
// translation of `source`:
//   loop          a token n-gram (n <= 4) repeated back to back: 3 times, a single token 4 times
//   length-ratio  target/source characters outside 0.4..2.5 (sources of 10+ characters)
//   copy          70%+ of 3+ target words are words of the source (case ignored)
//   numbers       a run of digits of the source is not in the target (as many times); numbers up to 12
//                 standing alone as a word may be spelled out
std::vector<std::string> failure_flags(const std::string& source, const std::string& target,
                                       const std::vector<int32_t>& target_ids);

// The texts --on-low-confidence can put in place of a translation.
enum class LowConfidenceAction { kKeep, kSource, kEmpty, kMark };
// "keep", "source", "empty", "mark" -> the action; throws std::invalid_argument for anything else.
LowConfidenceAction low_confidence_action(const std::string& name);
// What is written for a translation below --min-confidence.
std::string low_confidence_text(LowConfidenceAction action, const std::string& source,
                                const std::string& target);
// The word alignment of low_confidence_text's text given the translation's `links`: the source's own words
// (each to itself) for kSource, none for kEmpty, the mark's words linked to the first source word before
// the translation's for kMark; so a document's markup lands on the text that is written.
std::vector<WordLink> low_confidence_links(LowConfidenceAction action, const std::string& source,
                                           const std::vector<WordLink>& links);
// The prefix of `mark`.
constexpr const char* kLowConfidenceMark = "[low confidence] ";

}  // namespace pipeline
