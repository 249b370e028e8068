#pragma once

#include <optional>
#include <string>

#include "pipeline/option_table.h"

namespace pipeline {

// An option's value from the text a user typed, on the command line (`--beam-size 4`) or in a server query
// (`beam_size=4`): the one parser both front ends use. Nothing when `text` does not read as the option's type
// (blanks anywhere, trailing characters, a flag other than true/false/1/0); the range is range_error's to
// check, so 1e999 and nan come back as numbers.
std::optional<OptionValue> parse_option_text(const OptionSpec& spec, const std::string& text);

}  // namespace pipeline
