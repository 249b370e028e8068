// `--api-keys FILE`: the keys a client must give (api_key) to translate; one a line, blank lines and
// lines starting with # skipped.
#pragma once

#include <set>
#include <string>

namespace serve {

class ApiKeys {
 public:
  ApiKeys() = default;  // no file: every request is let in
  // Throws core::UsageError when the file cannot be read or holds no key.
  static ApiKeys load(const std::string& path);

  bool required() const { return !keys_.empty(); }
  bool accepts(const std::string& key) const { return keys_.empty() || keys_.count(key) > 0; }

 private:
  std::set<std::string> keys_;
};

}  // namespace serve
