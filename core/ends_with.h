// Whether a string ends with another (std::string::ends_with is C++20).
#pragma once

#include <string>

namespace core {

inline bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace core
