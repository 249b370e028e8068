// Whether a text holds a letter. Text without one (numbers, dates, versions, footnote marks, arrows) is kept
// as written: the model reads words, and given none it invents some.
#pragma once

#include <string_view>

namespace documents {

// True when `text` (UTF-8) holds a letter of any script; digits, punctuation, spaces, symbols, arrows,
// emoji and variation selectors are not letters. Invalid UTF-8 counts as a letter (kept for the model).
bool has_letter(std::string_view text);

}  // namespace documents
