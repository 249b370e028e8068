// ALL-CAPS input: a model trained on ordinary text translates capitals poorly (rare pieces, unknown
// words), so such a line is translated in the casing the model knows and its translation set in capitals.
#pragma once

#include <string>

namespace pipeline {

// Whether `line` is written in capitals: no lower-case letter, and at least two words of two or more
// capitals (a lone acronym such as "NASA" or "OK" stays as it is).
bool is_all_caps(const std::string& line);

// `line` as the model reads it best: lower case, each sentence's first letter a capital ("A DOG RUNS. IT
// BARKS." -> "A dog runs. It barks."). `language`: the source's BCP 47 tag for its case rules ("" for the
// root rules).
std::string sentence_case(const std::string& line, const std::string& language);

// `text` in capitals by the rules of `language` (German "ß" becomes "SS").
std::string upper_case(const std::string& text, const std::string& language);

}  // namespace pipeline
