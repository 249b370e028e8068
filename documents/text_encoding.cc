#include "documents/text_encoding.h"

#include <algorithm>
#include <cctype>

#include "core/utf8_encode.h"

namespace documents {
namespace {

// The bytes 0x80..0x9F of Windows-1252 as code points (0 where it has none: read as U+FFFD).
constexpr char32_t kWindows1252High[32] = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                           0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                                           0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                           0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

bool is_utf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char lead = static_cast<unsigned char>(bytes[i]);
    const size_t length = lead < 0x80                    ? 1
                          : lead >= 0xF0 && lead <= 0xF4 ? 4
                          : lead >= 0xE0                 ? 3
                          : lead >= 0xC2                 ? 2
                                                         : 0;
    if (length == 0 || i + length > bytes.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(bytes[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

std::string from_utf16(std::string_view bytes, bool big_endian) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 2; i + 1 < bytes.size(); i += 2) {
    const auto unit = [&](size_t at) {
      const unsigned char a = static_cast<unsigned char>(bytes[at]),
                          b = static_cast<unsigned char>(bytes[at + 1]);
      return static_cast<char32_t>(big_endian ? (a << 8) | b : (b << 8) | a);
    };
    char32_t c = unit(i);
    if (c >= 0xD800 && c <= 0xDBFF && i + 3 < bytes.size() && unit(i + 2) >= 0xDC00 &&
        unit(i + 2) <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (unit(i + 2) - 0xDC00);
      i += 2;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      c = 0xFFFD;  // a lone surrogate
    }
    core::append_utf8(out, c);
  }
  return out;
}

std::string from_windows_1252(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 8);
  for (char byte : bytes) {
    const unsigned char b = static_cast<unsigned char>(byte);
    const char32_t c = b >= 0x80 && b < 0xA0 ? kWindows1252High[b - 0x80] : b;
    core::append_utf8(out, c == 0 && b != 0 ? 0xFFFD : c);
  }
  return out;
}

}  // namespace

std::optional<std::string> text_as_utf8(std::string_view bytes, const std::string& name,
                                        std::vector<std::string>* warnings) {
  std::string encoding;
  std::string out;
  if (bytes.size() >= 2 && (bytes.substr(0, 2) == "\xFF\xFE" || bytes.substr(0, 2) == "\xFE\xFF")) {
    const bool big_endian = bytes[0] == '\xFE';
    encoding = big_endian ? "UTF-16BE" : "UTF-16LE";
    out = from_utf16(bytes, big_endian);
  } else if (is_utf8(bytes)) {
    return std::nullopt;
  } else {
    encoding = "Windows-1252 (Latin-1)";
    out = from_windows_1252(bytes);
  }
  if (warnings) warnings->push_back(name + ": not UTF-8: read as " + encoding + ", written as UTF-8");
  return out;
}

std::string declare_utf8_charset(std::string html) {
  std::string head = html.substr(0, std::min<size_t>(html.size(), 2048));
  std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
  const size_t key = head.find("charset=");
  if (key == std::string::npos) return html;
  size_t begin = key + 8;
  if (begin < head.size() && (head[begin] == '"' || head[begin] == '\'')) ++begin;
  size_t end = begin;
  while (end < head.size() && (std::isalnum(static_cast<unsigned char>(head[end])) || head[end] == '-' ||
                               head[end] == '_' || head[end] == ':' || head[end] == '.'))
    ++end;
  if (end > begin) html.replace(begin, end - begin, "utf-8");
  return html;
}

}  // namespace documents
