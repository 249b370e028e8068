// Tiny parsers for the YAML that native Marian releases carry: the model's `special:model.yml` and
// `decoder.yml` (flat "key: value" maps with a few lists), and vocabularies (`piece: id` lines).
// Not a YAML implementation: just the subset yaml-cpp / PyYAML emit for these files, parsed strictly
// enough that anything else is an error naming the file and line.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace models {

// A flat YAML map. Top-level `key: scalar`, `key: [a, b]`, or `key:` followed by indented `- item` lines
// (or an indented `[...]`). Other indented lines (nested maps) are skipped: no key we read is nested.
class FlatYaml {
 public:
  static FlatYaml parse(const std::string& text, const std::string& where);

  bool has(const std::string& key) const { return scalars_.count(key) || lists_.count(key); }
  // Typed access; `fallback` when absent. A present value of the wrong type throws ModelError naming
  // the file and the key.
  std::string string(const std::string& key, const std::string& fallback) const;
  int64_t integer(const std::string& key, int64_t fallback) const;
  double number(const std::string& key, double fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  // A list (an absent key or an empty scalar give `{}`).
  std::vector<std::string> list(const std::string& key) const;

  const std::string& where() const { return where_; }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

  std::string where_;
  std::map<std::string, std::string> scalars_;
  std::map<std::string, std::vector<std::string>> lists_;
};

// A Marian vocabulary file: one `piece: id` per line; pieces plain, "double-quoted" (with YAML/JSON
// escapes: \" \\ \/ \n \t \r \0 \a \b \e \f \v \N \_ \L \P \xXX \uXXXX \UXXXXXXXX, surrogate pairs) or
// 'single-quoted' (''). Ids must be integers in [0, 2^24); pieces and ids must be unique.
// Returns the entries in file order. Throws ModelError("WHERE:LINE: problem").
std::vector<std::pair<std::string, int32_t>> parse_vocab_yaml(const std::string& text,
                                                              const std::string& where);

// Unquotes one YAML scalar (plain, single- or double-quoted) that makes up all of `raw`
// (surrounding spaces allowed). Throws std::invalid_argument describing the problem.
std::string yaml_scalar(const std::string& raw);

}  // namespace models
