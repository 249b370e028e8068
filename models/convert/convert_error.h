// Converter refusals that point the user at an option. The library names the option by its ConvertOptions
// or MarianFiles field (or the converter function); a front end renders the names as its own flags, so
// no message thrown here names a command-line flag.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/model_error.h"

namespace models {

// Message parts alternating text and option name: {text, option, text, option, ...}.
using OptionMessage = std::vector<std::string>;

// The message with each option name replaced by name_of(option).
std::string render_option_message(const OptionMessage& parts,
                                  const std::function<std::string(const std::string&)>& name_of);

// what() names options by field: "output_dir DIR: directory is not empty (use force to replace ...)".
class ConvertUsageError : public core::UsageError {
 public:
  explicit ConvertUsageError(OptionMessage parts);
  const OptionMessage& parts() const { return parts_; }

 private:
  OptionMessage parts_;
};

// A source that cannot be converted this way, with a hint naming another converter or option.
class ConvertModelError : public ModelError {
 public:
  explicit ConvertModelError(OptionMessage parts);
  const OptionMessage& parts() const { return parts_; }

 private:
  OptionMessage parts_;
};

}  // namespace models
