// Language codes as people write them ("de", "deu", "ger", "de-DE", "DE") and as models name them, and
// the languages' English names: the one table both front ends use.
#pragma once

#include <string>

namespace front {

// The code a model's tags use: lower case, the primary subtag ("de-DE", "de_DE" -> "de"), ISO 639-3 or
// 639-2/B codes of the table's languages as their ISO 639-1 code ("deu", "ger" -> "de"); a code the table
// lacks comes back lower-cased, its primary subtag only.
std::string normalize_language(const std::string& code);

// Whether two codes name the same language once normalized ("deu" and "de-AT").
bool same_language_code(const std::string& a, const std::string& b);

// "German" for "de" (or "deu"); the code itself for a language the table lacks.
std::string language_name(const std::string& code);

}  // namespace front
