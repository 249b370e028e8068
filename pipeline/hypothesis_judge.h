// The last step of translating a line: each hypothesis's confidence and flags (pipeline/sentence_checks.h),
// its language against the model's, the capitals of an ALL-CAPS line restored, and the text put in place
// of a translation below --min-confidence.
#pragma once

#include <string>
#include <vector>

#include "core/search.h"
#include "pipeline/translate_options.h"
#include "pipeline/translation.h"

namespace pipeline {

// What judging a line's hypotheses needs beyond them.
struct JudgedLine {
  const std::string& source;      // the line as given
  const std::string& model_text;  // the line as the model read it (recased when ALL CAPS)
  std::string source_lang;        // the languages the model takes and gives; "" when unknown
  std::string target_lang;
};

// The flags of a line's hypothesis made of these sentences' hypotheses.
std::vector<std::string> hypothesis_flags(const std::vector<const core::Hypothesis*>& parts);

// The line's detected language into t.detected_language; flagged on each hypothesis by judge_last.
void detect_line_language(Translation& t, const JudgedLine& line);

// Adds to the hypothesis just pushed onto `t` its confidence and flags, sets it in capitals when the line
// was recased, and replaces its text when the confidence is below o.min_confidence. `parts` are its
// segments' hypotheses.
void judge_last(Translation& t, const JudgedLine& line, const std::vector<const core::Hypothesis*>& parts,
                const TranslateOptions& o);

}  // namespace pipeline
