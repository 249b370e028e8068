// Words that a period does not end a sentence after, per language, after the Moses nonbreaking-prefix
// lists (the MT community's reference for sentence splitting): titles ("Mr.", "Dr."), abbreviations
// ("vgl.", "env."), and prefixes that hold only before a number ("No. 5", "Nr. 5", "p. 12").
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace tokenizer {

struct NonbreakingPrefixes {
  std::unordered_set<std::string> always;  // without the period, case as written
  std::unordered_set<std::string> before_number;
  std::string before_number_suffix;  // "Hauptstr. 5": any word ending so, before a number
  bool ordinal_numbers = false;      // "am 3. Oktober": 1-3 digits and a period are no sentence end
};

// The lists for `language`'s primary subtag (en, de, fr); empty lists for others.
NonbreakingPrefixes nonbreaking_prefixes(std::string_view language);
// The primary subtags that have lists ("en", "de", "fr"), for messages.
const std::vector<std::string>& nonbreaking_prefix_languages();

}  // namespace tokenizer
