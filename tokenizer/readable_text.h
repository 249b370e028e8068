// What of a sentence the model can read: the segmenter passes text without letters or digits (only
// punctuation, symbols, control or zero-width characters, U+FFFD) through untranslated, and strips
// the characters no vocabulary spells (controls, invisible formatting) from the rest, so that neither
// makes the model invent a sentence.
#pragma once

#include <string>
#include <string_view>

namespace tokenizer {

// Whether valid UTF-8 `text` holds a letter or a digit of any script (ICU's u_isalnum).
bool has_letters_or_digits(std::string_view text);

// `text` without control characters other than whitespace, format characters (zero-width space,
// soft hyphen, bidi marks, BOM...; the joiners ZWJ and ZWNJ stay: scripts and emoji need them) and
// U+FFFD.
std::string model_readable(std::string_view text);

}  // namespace tokenizer
