// The translation options of a command line, registered from the one option table
// (pipeline/option_table.h): kept as given, resolved once against the model.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "pipeline/option_table.h"
#include "pipeline/translator.h"

namespace front {

// The options given, by TranslateOptions field; an option given twice keeps its last value.
class TranslateFlags {
 public:
  void set(std::string_view field, pipeline::OptionValue value);
  bool given(std::string_view field) const { return values_.count(field) > 0; }
  // The given translator's values put over `base` (top_k, top_p or temperature turn sampling on).
  pipeline::TranslateOptions apply(pipeline::TranslateOptions base) const;
  // The given front end's values over the defaults.
  pipeline::FrontOptions front() const;

 private:
  std::map<std::string, pipeline::OptionValue, std::less<>> values_;
};

// The model's defaults (Translator::defaults) with every flag given put over them, checked against the
// model: a value it cannot take is a core::UsageError naming the flag.
pipeline::TranslateOptions resolve_translate_flags(const TranslateFlags& flags,
                                                   const pipeline::Translator& translator);
// The same, throwing the model's pipeline::OptionError as it is (callers that name options by field: api/).
pipeline::TranslateOptions resolve_translate_options(const TranslateFlags& flags,
                                                     const pipeline::Translator& translator);

// The user's words for an OptionError: the flag that sets the field, then the rule.
std::string describe_option_error(const pipeline::OptionError& error);

// A warning for a --source-lang the sentence splitter has no abbreviation list for, else "".
std::string source_lang_warning(const TranslateFlags& flags, const pipeline::TranslateOptions& options);

}  // namespace front
