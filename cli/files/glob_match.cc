#include "cli/files/glob_match.h"

#include <fnmatch.h>

#include <string_view>
#include <vector>

namespace cli {
namespace {

std::vector<std::string> split_segments(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start) parts.emplace_back(path.substr(start, end - start));  // "a//b" is "a/b"
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

// Pattern segments from `p` on against name segments from `n` on; "**" tries every split point.
bool match_from(const std::vector<std::string>& pattern, std::size_t p, const std::vector<std::string>& name,
                std::size_t n) {
  for (; p < pattern.size(); ++p, ++n) {
    if (pattern[p] == "**") {
      while (p + 1 < pattern.size() && pattern[p + 1] == "**") ++p;  // "**/**" is one "**"
      for (std::size_t skip = n; skip <= name.size(); ++skip) {
        if (match_from(pattern, p + 1, name, skip)) return true;
      }
      return false;
    }
    if (n >= name.size() || ::fnmatch(pattern[p].c_str(), name[n].c_str(), 0) != 0) return false;
  }
  return n == name.size();
}

}  // namespace

bool glob_matches(const std::string& glob, const std::string& relative) {
  if (glob.empty()) return true;
  if (glob.find('/') == std::string::npos) {
    const std::size_t slash = relative.rfind('/');
    const std::string base = slash == std::string::npos ? relative : relative.substr(slash + 1);
    return ::fnmatch(glob.c_str(), base.c_str(), 0) == 0;
  }
  return match_from(split_segments(glob), 0, split_segments(relative), 0);
}

}  // namespace cli
