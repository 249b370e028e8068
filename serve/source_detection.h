// Which language a request's text is in, for POST /detect and source "auto": the language identifier's
// (CLD2, pipeline/language_identifier.h) answer, named as the served models name it.
#pragma once

#include <string>

#include "serve/model_set.h"

namespace serve {

struct DetectedLanguage {
  std::string language;  // "" when it cannot be told
  int confidence = 0;    // the share of the text's letters in that language, 0..100; 0: not measured
};

// The language of `text`: the code of a served source language that names it ("nb" for CLD2's "no"),
// else CLD2's code; {"", 0} when the text is too short, a mix of languages, or unknown.
DetectedLanguage detect_language(const ModelSet& models, const std::string& text);

// source "auto": the pair into `target` from the language of `text` as detect_language tells it (the
// language /detect answers), and `detected` that language. When the language cannot be told, the first
// pair into `target`, and `detected` is its source with confidence 0. ApiError 400 when no served pair
// goes from the told language into `target`, or none goes into `target`. The pair comes loaded
// (ModelSet::use).
LanguagePair auto_pair(const ModelSet& models, const std::string& text, const std::string& target,
                       DetectedLanguage& detected);

}  // namespace serve
