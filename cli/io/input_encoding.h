// What an input holds, decided from its first bytes: one rule for -i, stdin and directory mode, so a
// file directory mode skips as binary is refused the same way when given alone.
#pragma once

#include <cstddef>
#include <string_view>

namespace cli {

enum class InputEncoding {
  kUtf8,     // text (also plain ASCII, and UTF-8 with or without a BOM)
  kUtf16Le,  // BOM FF FE
  kUtf16Be,  // BOM FE FF
  kUtf32Le,  // BOM FF FE 00 00
  kUtf32Be,  // BOM 00 00 FE FF
  kGzip,     // magic bytes 1F 8B, whatever the name
  kBinary,   // none of these: refused (or skipped in directory mode)
};

// How many leading bytes detect_input_encoding() looks at.
inline constexpr std::size_t kEncodingSampleBytes = 8192;

// The encoding of an input whose first bytes are `sample` (at most kEncodingSampleBytes; fewer for a
// short input or a pipe with no more data yet). A BOM or gzip's magic decides; otherwise the input
// is binary when over 30% of its bytes are ill-formed UTF-8, NUL or control characters other than
// tab, newlines, form feed, backspace and escape (UTF-16 without a BOM is, by its NULs). A stray NUL
// or broken byte in text does not make it binary: the reader turns it into U+FFFD.
InputEncoding detect_input_encoding(std::string_view sample);

// The message for binary input, after the file's name: says what is read instead.
inline constexpr std::string_view kBinaryInputMessage =
    "looks like a binary file, not text (nmt reads UTF-8, UTF-16 or UTF-32 with a BOM, and gzip)";

}  // namespace cli
