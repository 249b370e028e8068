// Counting and stepping over the characters (code points) of UTF-8 text: the one place that knows a
// continuation byte when it sees one. The text is valid UTF-8 or the counts are approximate.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace core {

inline bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

inline std::size_t count_code_points(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !is_utf8_continuation(c); }));
}

// `at` moved back to the start of the character it falls in (at most 3 bytes: farther is not UTF-8).
inline std::size_t code_point_start(std::string_view text, std::size_t at) {
  for (int step = 0; step < 3 && at > 0 && at < text.size() && is_utf8_continuation(text[at]); ++step) --at;
  return at;
}

// The byte after the character that starts at `at` (< text.size()).
inline std::size_t next_code_point(std::string_view text, std::size_t at) {
  ++at;
  while (at < text.size() && is_utf8_continuation(text[at])) ++at;
  return at;
}

// The first `n` characters of `text`.
inline std::string_view first_code_points(std::string_view text, std::size_t n) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_utf8_continuation(text[i]) && seen++ == n) return text.substr(0, i);
  }
  return text;
}

// The last `n` characters of `text`.
inline std::string_view last_code_points(std::string_view text, std::size_t n) {
  std::size_t seen = 0;
  for (std::size_t i = text.size(); i-- > 0;) {
    if (!is_utf8_continuation(text[i]) && ++seen == n) return text.substr(i);
  }
  return text;
}

}  // namespace core
