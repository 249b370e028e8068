// UTF-8 validation and repair. Input text may be anything; everything past the reader is valid UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/printable.h"

namespace core {

inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

// One decoding step at the start of a non-empty byte range (core/printable.h).

bool is_valid_utf8(std::string_view s);

// Bytes belonging to ill-formed sequences. A sequence cut off by the end of `s` is not counted
// when `ignore_truncated_tail` (for samples taken from the start of a longer file).
std::size_t count_invalid_utf8_bytes(std::string_view s, bool ignore_truncated_tail);

// Valid UTF-8 out of any bytes: each maximal ill-formed subpart becomes one U+FFFD, and each NUL
// byte becomes U+FFFD too (NUL is valid UTF-8 but breaks C strings and tokenizers; U+FFFD rather
// than a space so damaged input stays visible in the output and is never silently re-tokenized).
// Everything else, including CR and other control characters, is kept as is.
std::string sanitize_utf8(std::string_view s);

}  // namespace core
