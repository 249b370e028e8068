#include "documents/letters.h"

namespace documents {
namespace {

// Code points outside ASCII that are no letters: Latin-1's symbols, general punctuation, super- and
// subscripts, currency, arrows, mathematical and technical symbols, boxes, dingbats, CJK punctuation,
// variation selectors, full-width punctuation and emoji. Anything else non-ASCII is taken as a letter.
bool is_symbol(char32_t c) {
  return (c >= 0x80 && c <= 0xBF && c != 0xAA && c != 0xB5 && c != 0xBA) || c == 0xD7 || c == 0xF7 ||
         (c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x3004) || (c >= 0x3008 && c <= 0x3020) ||
         (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xFF01 && c <= 0xFF20) || (c >= 0x1F000 && c <= 0x1FAFF);
}

}  // namespace

bool has_letter(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      if ((lead | 0x20) >= 'a' && (lead | 0x20) <= 'z') return true;
      ++i;
      continue;
    }
    const size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (length == 0 || i + length > text.size()) return true;
    char32_t c = lead & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) {
      const unsigned char next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return true;
      c = (c << 6) | (next & 0x3F);
    }
    if (!is_symbol(c)) return true;
    i += length;
  }
  return false;
}

}  // namespace documents
