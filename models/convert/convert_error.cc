#include "models/convert/convert_error.h"

#include <utility>

namespace models {

namespace {

std::string field_name(const std::string& option) { return option; }

}  // namespace

std::string render_option_message(const OptionMessage& parts,
                                  const std::function<std::string(const std::string&)>& name_of) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += i % 2 == 0 ? parts[i] : name_of(parts[i]);
  return out;
}

ConvertUsageError::ConvertUsageError(OptionMessage parts)
    : core::UsageError(render_option_message(parts, field_name)), parts_(std::move(parts)) {}

ConvertModelError::ConvertModelError(OptionMessage parts)
    : ModelError(render_option_message(parts, field_name)), parts_(std::move(parts)) {}

}  // namespace models
