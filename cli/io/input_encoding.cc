#include "cli/io/input_encoding.h"

#include "core/utf8_text.h"

namespace cli {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool looks_binary(std::string_view sample) {
  std::size_t bad = core::count_invalid_utf8_bytes(sample, /*ignore_truncated_tail=*/true);
  for (unsigned char c : sample) {
    const bool text_control =
        c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == '\b' || c == 0x1B;
    if ((c < 0x20 && !text_control) || c == 0x7F) ++bad;
  }
  return bad * 10 > sample.size() * 3;
}

}  // namespace

InputEncoding detect_input_encoding(std::string_view sample) {
  using namespace std::string_view_literals;
  if (starts_with(sample, "\x1F\x8B"sv)) return InputEncoding::kGzip;
  // UTF-32LE's BOM starts like UTF-16LE's: test the longer one first.
  if (starts_with(sample, "\xFF\xFE\0\0"sv)) return InputEncoding::kUtf32Le;
  if (starts_with(sample, "\0\0\xFE\xFF"sv)) return InputEncoding::kUtf32Be;
  if (starts_with(sample, "\xFF\xFE"sv)) return InputEncoding::kUtf16Le;
  if (starts_with(sample, "\xFE\xFF"sv)) return InputEncoding::kUtf16Be;
  return looks_binary(sample) ? InputEncoding::kBinary : InputEncoding::kUtf8;
}

}  // namespace cli
