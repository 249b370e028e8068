#include "pipeline/option_text.h"

#include <cerrno>
#include <cstdlib>

namespace pipeline {

std::optional<OptionValue> parse_option_text(const OptionSpec& spec, const std::string& text) {
  switch (spec.type) {
    case OptionType::kText:
      return OptionValue(text);
    case OptionType::kFlag:
      if (text == "true" || text == "1") return OptionValue(true);
      if (text == "false" || text == "0") return OptionValue(false);
      return std::nullopt;
    case OptionType::kInt:
    case OptionType::kNumber:
      break;
  }
  // strtoll and strtod skip leading blanks: a value with a blank anywhere is not one.
  if (text.empty() || text.find_first_of(" \t\r\n\v\f") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  if (spec.type == OptionType::kInt) {
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
    return OptionValue(static_cast<int64_t>(value));
  }
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return OptionValue(value);
}

}  // namespace pipeline
