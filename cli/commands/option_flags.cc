#include "cli/commands/option_flags.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/option_text.h"

namespace cli {

namespace {

using pipeline::OptionSpec;
using pipeline::OptionType;
using pipeline::OptionValue;

// "Beam width; 1 = greedy (default: the model's) (1..256)".
std::string help_text(const OptionSpec& spec) {
  std::string help(spec.help);
  if (spec.type != OptionType::kFlag) help += " (default: " + std::string(spec.default_text) + ")";
  const std::string range = pipeline::range_text(spec);
  if (!range.empty()) help += " (" + range + ")";
  return help;
}

std::string value_name(const OptionSpec& spec) {
  if (!spec.value_name.empty()) return std::string(spec.value_name);
  if (!spec.choices.empty()) return "WORD";
  switch (spec.type) {
    case OptionType::kInt:
      return "N";
    case OptionType::kNumber:
      return "X";
    default:
      return "LANG";  // the table's text options are languages
  }
}

}  // namespace

void add_option_flags(CLI::App& cmd, front::TranslateFlags& flags, bool attention_only) {
  for (const OptionSpec& spec : pipeline::option_table()) {
    if (attention_only && !spec.attention) continue;
    const std::string names(spec.names);
    const std::string field(spec.field);
    if (spec.type == OptionType::kFlag) {
      const bool value = spec.flag_value;
      cmd.add_flag_function(
          names, [&flags, field, value](int64_t) { flags.set(field, value); }, help_text(spec));
      continue;
    }
    CLI::Option* option = nullptr;
    if (spec.repeats) {
      option = cmd.add_option_function<std::vector<std::string>>(
          names,
          [&flags, &spec](const std::vector<std::string>& texts) {
            std::string joined;
            for (const std::string& text : texts) joined += (joined.empty() ? "" : "\n") + text;
            flags.set(spec.field, joined);
          },
          help_text(spec));
      option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
    } else {
      option = cmd.add_option_function<std::string>(
          names,
          [&flags, &spec](const std::string& text) {
            flags.set(spec.field, *pipeline::parse_option_text(spec, text));
          },
          help_text(spec));
    }
    option->type_name(value_name(spec));
    option->check(CLI::Validator(
        [&spec](std::string& text) -> std::string {
          const std::optional<OptionValue> value = pipeline::parse_option_text(spec, text);
          // NaN breaks every range: an unparsable value gets the same rule as one out of range.
          const std::string error = pipeline::range_error(spec, value ? *value : OptionValue(std::nan("")));
          return error.empty() ? "" : error + ", got '" + text + "'";
        },
        ""));
  }
}

}  // namespace cli
