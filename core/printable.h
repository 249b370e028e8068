// Untrusted text (file names, model JSON keys and values, tokenizer names) made safe for a one-line
// message, so a crafted model or file name cannot move the cursor, retitle or recolour a terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace core {

// One decoding step at the start of a non-empty byte range.
struct Utf8Step {
  std::size_t length;  // bytes consumed: the character, or the maximal subpart replaced by one U+FFFD
  bool valid;          // a well-formed character (Unicode Table 3-7)
  bool truncated;      // invalid only because the range ended inside a possibly valid sequence
};

// Decodes one character per Unicode "maximal subpart" practice: an ill-formed prefix of a valid
// sequence is one error; a byte that can start no sequence (80..C1, F5..FF) is one error on its own.
// Overlongs (C0, C1, E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and > U+10FFFF (F4 90.., F5..)
// are thereby invalid. Requires n >= 1.
Utf8Step utf8_step(const unsigned char* p, std::size_t n);

// C0 controls, DEL, the C1 controls U+0080..U+009F (xterm reads U+009B as CSI) and invalid UTF-8
// bytes become \xNN; everything else is kept.
std::string printable(std::string_view text);

}  // namespace core
