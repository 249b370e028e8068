// A text document's bytes as the readers want them, UTF-8: a file in UTF-16 (with its BOM) or in a legacy
// 8-bit encoding (Latin-1 or Windows-1252, what old subtitles and pages are written in) is converted, with a
// warning, instead of losing its accented letters to U+FFFD.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace documents {

// `bytes` decoded from UTF-16 (little- or big-endian, by its BOM) or else Windows-1252 (a superset of
// Latin-1's printable characters) into UTF-8, with the warning `NAME: not UTF-8: read as ENCODING, written
// as UTF-8`; nothing when they are UTF-8 already (a BOM included), to be read as they are.
std::optional<std::string> text_as_utf8(std::string_view bytes, const std::string& name,
                                        std::vector<std::string>* warnings);

// An HTML page converted to UTF-8 declares so: the first `charset=` in its head (a `<meta charset>` or
// `http-equiv` content type) names utf-8 after the conversion.
std::string declare_utf8_charset(std::string html);

}  // namespace documents
