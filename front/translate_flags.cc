#include "front/translate_flags.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "pipeline/option_text.h"
#include "tokenizer/nonbreaking_prefixes.h"

namespace front {

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

void TranslateFlags::set(std::string_view field, OptionValue value) {
  pipeline::option_spec(field);  // a field the table lacks is a programming error
  values_[std::string(field)] = std::move(value);
}

pipeline::TranslateOptions TranslateFlags::apply(pipeline::TranslateOptions base) const {
  for (const auto& [field, value] : values_) {
    const OptionSpec& spec = pipeline::option_spec(field);
    if (spec.set != nullptr) spec.set(base, value);
  }
  return base;
}

pipeline::FrontOptions TranslateFlags::front() const {
  pipeline::FrontOptions front;
  for (const auto& [field, value] : values_) {
    const OptionSpec& spec = pipeline::option_spec(field);
    if (spec.set_front != nullptr) spec.set_front(front, value);
  }
  return front;
}

void add_option_flags(CLI::App& cmd, TranslateFlags& flags, bool attention_only) {
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

std::string describe_option_error(const pipeline::OptionError& e) {
  for (const OptionSpec& spec : pipeline::option_table()) {
    if (spec.field == e.option()) return pipeline::flag_name(spec) + " " + e.rule();
  }
  return e.what();
}

pipeline::TranslateOptions resolve_translate_flags(const TranslateFlags& flags,
                                                   const pipeline::Translator& translator) {
  try {
    return resolve_translate_options(flags, translator);
  } catch (const pipeline::OptionError& e) {
    throw core::UsageError(describe_option_error(e));
  }
}

pipeline::TranslateOptions resolve_translate_options(const TranslateFlags& flags,
                                                     const pipeline::Translator& translator) {
  pipeline::TranslateOptions o = translator.defaults();
  o.target_lang.clear();
  // Sampling draws one token at a time: its beam is 1 unless given.
  if (flags.apply({}).sampling.enabled && !flags.given("beam_size")) o.beam_size = 1;
  o = flags.apply(o);
  if (o.source_lang.empty()) o.source_lang = translator.defaults().source_lang;
  // A model without language tags has no tag to prepend: naming its own target language is allowed.
  if (translator.language_tags().empty() && o.target_lang == translator.model().description().target_lang)
    o.target_lang.clear();
  translator.check(o);
  o.glossary_terms = pipeline::load_glossary(o);
  return o;
}

std::string source_lang_warning(const TranslateFlags& flags, const pipeline::TranslateOptions& options) {
  if (!flags.given("source_lang") || options.source_lang.empty()) return "";
  const std::string primary = options.source_lang.substr(0, options.source_lang.find_first_of("-_"));
  const std::vector<std::string>& known = tokenizer::nonbreaking_prefix_languages();
  if (std::find(known.begin(), known.end(), primary) != known.end()) return "";
  std::string list;
  for (const std::string& l : known) list += (list.empty() ? "" : ", ") + l;
  return "--source-lang " + options.source_lang +
         ": no abbreviation list for this language (there are lists for " + list +
         "): sentences are split by language-neutral rules";
}

}  // namespace front
