#include "models/convert/marian_yaml.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "models/model_error.h"

namespace models {

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

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
        append_utf8(out, 0x85);
        break;
      case '_':
        append_utf8(out, 0xA0);
        break;
      case 'L':
        append_utf8(out, 0x2028);
        break;
      case 'P':
        append_utf8(out, 0x2029);
        break;
      case 'x':
        append_utf8(out, hex_digits(s, i, 2));
        break;
      case 'U': {
        const uint32_t cp = hex_digits(s, i, 8);
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
          throw std::invalid_argument("invalid code point");
        append_utf8(out, cp);
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
        append_utf8(out, cp);
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

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) start = 3;  // BOM
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

bool skippable(const std::string& line) {
  const std::string t = trim(line);
  return t.empty() || t[0] == '#' || t == "---" || t == "...";
}

}  // namespace

std::string yaml_scalar(const std::string& raw) {
  const std::string s = trim(raw);
  if (!s.empty() && (s[0] == '"' || s[0] == '\'')) {
    size_t i = 0;
    std::string out = quoted(s, i);
    expect_end(s, i);
    return out;
  }
  return trim(strip_comment(s));
}

FlatYaml FlatYaml::parse(const std::string& text_in, const std::string& where) {
  FlatYaml y;
  y.where_ = where;
  // special:model.yml is NUL-terminated: stop at the first NUL.
  const std::string text = text_in.substr(0, text_in.find('\0'));
  const std::vector<std::string> lines = split_lines(text);
  std::string pending;  // key whose value follows on indented lines
  bool nested = false;  // inside a nested map under a top-level key: skip until the next top-level key
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    if (skippable(line)) continue;
    const std::string at = where + ":" + std::to_string(n + 1) + ": ";
    try {
      const bool indented = line[0] == ' ' || line[0] == '\t';
      const std::string t = trim(line);
      if (t[0] == '-' && (t.size() == 1 || t[1] == ' ')) {  // list item
        if (nested) continue;
        if (pending.empty()) throw std::invalid_argument("list item outside a list");
        y.lists_[pending].push_back(yaml_scalar(t.substr(1)));
        continue;
      }
      if (indented) {
        if (!pending.empty() && t[0] == '[' && !y.lists_.count(pending)) {
          y.lists_[pending] = flow_list(t);
        } else if (!y.lists_.count(pending)) {
          nested = true;
        }
        pending.clear();
        continue;  // nested content we do not read
      }
      size_t colon = std::string::npos;
      size_t key_end = 0;
      std::string key;
      if (t[0] == '"' || t[0] == '\'') {
        size_t i = 0;
        key = quoted(t, i);
        key_end = i;
        while (key_end < t.size() && t[key_end] == ' ') ++key_end;
        if (key_end < t.size() && t[key_end] == ':') colon = key_end;
      } else {
        for (size_t i = 0; i < t.size(); ++i) {
          if (t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ' || t[i + 1] == '\t')) {
            colon = i;
            break;
          }
        }
        if (colon != std::string::npos) key = trim(t.substr(0, colon));
      }
      if (colon == std::string::npos || key.empty()) throw std::invalid_argument("expected 'key: value'");
      if (y.scalars_.count(key) || y.lists_.count(key))
        throw std::invalid_argument("key '" + key + "' appears twice");
      const std::string value = trim(t.substr(colon + 1));
      pending.clear();
      nested = false;
      if (value.empty() || value[0] == '#') {
        pending = key;
        y.scalars_[key] = "";
      } else if (value[0] == '[') {
        y.lists_[key] = flow_list(value);
      } else if (value[0] == '{' || value[0] == '|' || value[0] == '>' || value[0] == '&' ||
                 value[0] == '*') {
        y.scalars_[key] = value;  // raw: flow maps, block scalars, anchors (never a key we read)
      } else {
        y.scalars_[key] = yaml_scalar(value);
      }
    } catch (const std::invalid_argument& e) {
      throw ModelError(at + e.what());
    }
  }
  // A key with an empty value that turned out to be a list is a list.
  for (const auto& kv : y.lists_) y.scalars_.erase(kv.first);
  return y;
}

void FlatYaml::fail(const std::string& key, const std::string& problem) const {
  throw ModelError(where_ + ": " + key + ": " + problem);
}

std::string FlatYaml::string(const std::string& key, const std::string& fallback) const {
  if (lists_.count(key)) fail(key, "expected a single value, got a list");
  auto it = scalars_.find(key);
  return it == scalars_.end() ? fallback : it->second;
}

int64_t FlatYaml::integer(const std::string& key, int64_t fallback) const {
  if (!has(key)) return fallback;
  const std::string s = string(key, "");
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0) fail(key, "expected an integer, got '" + s + "'");
  return v;
}

double FlatYaml::number(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  const std::string s = string(key, "");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno != 0 || !std::isfinite(v))
    fail(key, "expected a number, got '" + s + "'");
  return v;
}

bool FlatYaml::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const std::string s = string(key, "");
  if (s == "true" || s == "True" || s == "TRUE" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "False" || s == "FALSE" || s == "no" || s == "off") return false;
  fail(key, "expected true or false, got '" + s + "'");
}

std::vector<std::string> FlatYaml::list(const std::string& key) const {
  auto it = lists_.find(key);
  if (it != lists_.end()) return it->second;
  auto s = scalars_.find(key);
  if (s != scalars_.end() && !s->second.empty()) fail(key, "expected a list, got '" + s->second + "'");
  return {};
}

std::vector<std::pair<std::string, int32_t>> parse_vocab_yaml(const std::string& text,
                                                              const std::string& where) {
  std::vector<std::pair<std::string, int32_t>> out;
  std::set<std::string> pieces;
  std::set<int32_t> ids;
  const std::vector<std::string> lines = split_lines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    if (skippable(line)) continue;
    const std::string at = where + ":" + std::to_string(n + 1) + ": ";
    try {
      if (line[0] == ' ' || line[0] == '\t') throw std::invalid_argument("unexpected indentation");
      std::string piece, value;
      if (line[0] == '"' || line[0] == '\'') {
        size_t i = 0;
        piece = quoted(line, i);
        while (i < line.size() && line[i] == ' ') ++i;
        if (i >= line.size() || line[i] != ':') throw std::invalid_argument("expected ':' after the piece");
        value = line.substr(i + 1);
      } else {
        if (line[0] == '?' && (line.size() == 1 || line[1] == ' ')) {
          throw std::invalid_argument("complex keys ('? ') are not supported");
        }
        // A plain key cannot contain ": ", so the id follows the last one.
        const size_t colon = line.rfind(": ");
        if (colon == std::string::npos || colon == 0) throw std::invalid_argument("expected 'piece: id'");
        piece = line.substr(0, colon);
        while (!piece.empty() && (piece.back() == ' ' || piece.back() == '\t')) piece.pop_back();
        value = line.substr(colon + 1);
      }
      value = trim(strip_comment(value));
      errno = 0;
      char* end = nullptr;
      const long long id = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0 || id < 0 || id >= (1 << 24)) {
        throw std::invalid_argument("id must be an integer in [0, 2^24), got '" + value + "'");
      }
      if (!pieces.insert(piece).second) throw std::invalid_argument("piece '" + piece + "' appears twice");
      if (!ids.insert(static_cast<int32_t>(id)).second) {
        throw std::invalid_argument("id " + std::to_string(id) + " is used twice");
      }
      out.emplace_back(piece, static_cast<int32_t>(id));
    } catch (const std::invalid_argument& e) {
      throw ModelError(at + e.what());
    }
  }
  return out;
}

}  // namespace models
