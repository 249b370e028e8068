#include "tokenizer/readable_text.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <cstdint>

namespace tokenizer {
namespace {

// Calls f(code point, byte offset, byte length) for each code point of `text`.
template <typename F>
void for_each_code_point(std::string_view text, F f) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const auto length = static_cast<int32_t>(text.size());
  int32_t i = 0;
  while (i < length) {
    const int32_t start = i;
    UChar32 c;
    U8_NEXT(s, i, length, c);
    f(c, static_cast<size_t>(start), static_cast<size_t>(i - start));
  }
}

bool unreadable(UChar32 c) {
  if (c < 0 || c == 0xFFFD) return true;  // c < 0: an ill-formed byte
  const int8_t type = u_charType(c);
  if (type == U_CONTROL_CHAR) return !u_isUWhiteSpace(c);
  return type == U_FORMAT_CHAR && c != 0x200C && c != 0x200D;
}

}  // namespace

bool has_letters_or_digits(std::string_view text) {
  bool found = false;
  for_each_code_point(text, [&](UChar32 c, size_t, size_t) { found = found || (c >= 0 && u_isalnum(c)); });
  return found;
}

std::string model_readable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, [&](UChar32 c, size_t at, size_t size) {
    if (!unreadable(c)) out.append(text.substr(at, size));
  });
  return out;
}

}  // namespace tokenizer
