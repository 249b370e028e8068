#include "serve/api_keys.h"

#include <fstream>

#include "core/error.h"

namespace serve {

ApiKeys ApiKeys::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::UsageError("--api-keys " + path + ": cannot read it");
  ApiKeys keys;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    keys.keys_.insert(line.substr(start));
  }
  if (keys.keys_.empty()) throw core::UsageError("--api-keys " + path + ": no key in it (one a line)");
  return keys;
}

}  // namespace serve
