#include "models/convert/marian_yaml.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "models/convert/yaml_scalars.h"
#include "models/model_error.h"

namespace models {

FlatYaml FlatYaml::parse(const std::string& text_in, const std::string& where) {
  FlatYaml y;
  y.where_ = where;
  // special:model.yml is NUL-terminated: stop at the first NUL.
  const std::string text = text_in.substr(0, text_in.find('\0'));
  const std::vector<std::string> lines = yaml::yaml_lines(text);
  std::string pending;  // key whose value follows on indented lines
  bool nested = false;  // inside a nested map under a top-level key: skip until the next top-level key
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    if (yaml::skippable(line)) continue;
    const std::string at = where + ":" + std::to_string(n + 1) + ": ";
    try {
      const bool indented = line[0] == ' ' || line[0] == '\t';
      const std::string t = yaml::trim(line);
      if (t[0] == '-' && (t.size() == 1 || t[1] == ' ')) {  // list item
        if (nested) continue;
        if (pending.empty()) throw std::invalid_argument("list item outside a list");
        y.lists_[pending].push_back(yaml_scalar(t.substr(1)));
        continue;
      }
      if (indented) {
        if (!pending.empty() && t[0] == '[' && !y.lists_.count(pending)) {
          y.lists_[pending] = yaml::flow_list(t);
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
        key = yaml::quoted(t, i);
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
        if (colon != std::string::npos) key = yaml::trim(t.substr(0, colon));
      }
      if (colon == std::string::npos || key.empty()) throw std::invalid_argument("expected 'key: value'");
      if (y.scalars_.count(key) || y.lists_.count(key))
        throw std::invalid_argument("key '" + key + "' appears twice");
      const std::string value = yaml::trim(t.substr(colon + 1));
      pending.clear();
      nested = false;
      if (value.empty() || value[0] == '#') {
        pending = key;
        y.scalars_[key] = "";
      } else if (value[0] == '[') {
        y.lists_[key] = yaml::flow_list(value);
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
  const std::vector<std::string> lines = yaml::yaml_lines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    if (yaml::skippable(line)) continue;
    const std::string at = where + ":" + std::to_string(n + 1) + ": ";
    try {
      if (line[0] == ' ' || line[0] == '\t') throw std::invalid_argument("unexpected indentation");
      std::string piece, value;
      if (line[0] == '"' || line[0] == '\'') {
        size_t i = 0;
        piece = yaml::quoted(line, i);
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
      value = yaml::trim(yaml::strip_comment(value));
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
