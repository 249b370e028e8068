// Which language a text is in: our interface to a statistical language identifier (CLD2), so the rest of
// the engine neither includes nor links it.
#pragma once

#include <string>

namespace pipeline {

// The language of `text` as a lower-case ISO 639 code ("de", "en", "zh-Hant"), or "" when it cannot be
// told reliably: too few letters, a mix of languages, invalid UTF-8, or an unknown language.
std::string identify_language(const std::string& text);

// identify_language's answer with the share of the text's letters in that language (0..100, CLD2's
// percent); {"", 0} when it cannot be told.
struct LanguageGuess {
  std::string language;
  int percent = 0;
};
LanguageGuess guess_language(const std::string& text);

// Whether identify_language can tell the language of a BCP 47 tag ("en", "en-US", "nb"); not for tags it
// does not know (three-letter codes such as "deu", language groups).
bool can_identify(const std::string& tag);

// Whether a detected code and a language tag name the same language, by their primary subtags ("en-US"
// is "en"; "nb" is "no"); languages the identifier tells apart poorly (Croatian, Serbian, Bosnian;
// Indonesian, Malay) count as one.
bool same_language(const std::string& detected, const std::string& tag);

}  // namespace pipeline
