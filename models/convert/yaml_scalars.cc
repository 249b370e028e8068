#include "models/convert/yaml_scalars.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/text_lines.h"
#include "core/utf8_encode.h"
#include "models/convert/marian_yaml.h"
#include "models/model_error.h"

namespace models {
namespace yaml {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

namespace {

uint32_t hex_digits(const std::string& s, size_t& i, int n) {
  if (i + n > s.size()) throw std::invalid_argument("truncated escape sequence");
  uint32_t v = 0;
  for (int k = 0; k < n; ++k) {
    const char c = s[i++];
    v <<= 4;
    if (c >= '0' && c <= '9') {
      v |= static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v |= static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      v |= static_cast<uint32_t>(c - 'A' + 10);
    } else {
      throw std::invalid_argument("bad hex digit in escape sequence");
    }
  }
  return v;
}

}  // namespace

// Reads a quoted scalar starting at s[i] (the quote); leaves i after the closing quote.
std::string quoted(const std::string& s, size_t& i) {
  const char q = s[i++];
  std::string out;
  while (true) {
    if (i >= s.size()) throw std::invalid_argument("unterminated quoted string");
    const char c = s[i++];
    if (q == '\'') {
      if (c == '\'') {
        if (i < s.size() && s[i] == '\'') {
          out += '\'';
          ++i;
          continue;
        }
        return out;
      }
      out += c;
      continue;
    }
    if (c == '"') return out;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i >= s.size()) throw std::invalid_argument("unterminated escape sequence");
    const char e = s[i++];
    switch (e) {
      case '0':
        out += '\0';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 't':
      case '\t':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'v':
        out += '\v';
        break;
      case 'f':
        out += '\f';
        break;
      case 'r':
        out += '\r';
        break;
      case 'e':
        out += '\x1b';
        break;
      case ' ':
        out += ' ';
        break;
      case '"':
        out += '"';
        break;
      case '/':
        out += '/';
        break;
      case '\\':
        out += '\\';
        break;
      case 'N':
        core::append_utf8(out, 0x85);
        break;
      case '_':
        core::append_utf8(out, 0xA0);
        break;
      case 'L':
        core::append_utf8(out, 0x2028);
        break;
      case 'P':
        core::append_utf8(out, 0x2029);
        break;
      case 'x':
        core::append_utf8(out, hex_digits(s, i, 2));
        break;
      case 'U': {
        const uint32_t cp = hex_digits(s, i, 8);
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
          throw std::invalid_argument("invalid code point");
        core::append_utf8(out, cp);
        break;
      }
      case 'u': {
        uint32_t cp = hex_digits(s, i, 4);
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // JSON-style surrogate pair
          if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u')
            throw std::invalid_argument("lone surrogate");
          i += 2;
          const uint32_t lo = hex_digits(s, i, 4);
          if (lo < 0xDC00 || lo > 0xDFFF) throw std::invalid_argument("lone surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          throw std::invalid_argument("lone surrogate");
        }
        core::append_utf8(out, cp);
        break;
      }
      default:
        throw std::invalid_argument(std::string("unknown escape '\\") + e + "'");
    }
  }
}

// Removes a trailing " # comment" from a plain scalar.
std::string strip_comment(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) return s.substr(0, i);
  }
  return s;
}

// After a quoted scalar: only spaces and an optional comment may follow.
void expect_end(const std::string& s, size_t i) {
  const std::string rest = trim(s.substr(i));
  if (!rest.empty() && rest[0] != '#') throw std::invalid_argument("unexpected text after a quoted string");
}

std::vector<std::string> flow_list(const std::string& raw) {
  const std::string s = trim(strip_comment(raw));
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') throw std::invalid_argument("unterminated [list]");
  std::vector<std::string> items;
  const std::string body = s.substr(1, s.size() - 2);
  size_t i = 0;
  while (true) {
    while (i < body.size() && (body[i] == ' ' || body[i] == '\t')) ++i;
    if (i >= body.size()) break;
    if (body[i] == '"' || body[i] == '\'') {
      items.push_back(quoted(body, i));
      while (i < body.size() && (body[i] == ' ' || body[i] == '\t')) ++i;
      if (i < body.size() && body[i] != ',') throw std::invalid_argument("expected ',' in [list]");
    } else {
      const size_t comma = body.find(',', i);
      items.push_back(trim(body.substr(i, comma == std::string::npos ? std::string::npos : comma - i)));
      i = comma == std::string::npos ? body.size() : comma;
    }
    if (i < body.size()) ++i;  // the comma
  }
  return items;
}

std::vector<std::string> yaml_lines(const std::string& text) {
  const bool bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0;
  return core::split_lines(std::string_view(text).substr(bom ? 3 : 0));
}

bool skippable(const std::string& line) {
  const std::string t = trim(line);
  return t.empty() || t[0] == '#' || t == "---" || t == "...";
}

}  // namespace yaml

std::string yaml_scalar(const std::string& raw) {
  using namespace yaml;
  const std::string s = trim(raw);
  if (!s.empty() && (s[0] == '"' || s[0] == '\'')) {
    size_t i = 0;
    std::string out = quoted(s, i);
    expect_end(s, i);
    return out;
  }
  return trim(strip_comment(s));
}

}  // namespace models
