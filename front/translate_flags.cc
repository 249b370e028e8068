#include "front/translate_flags.h"

#include <algorithm>
#include <optional>

#include "pipeline/option_text.h"
#include "tokenizer/nonbreaking_prefixes.h"

namespace front {

void TranslateFlags::set(std::string_view field, pipeline::OptionValue value) {
  pipeline::option_spec(field);  // a field the table lacks is a programming error
  values_[std::string(field)] = std::move(value);
}

pipeline::TranslateOptions TranslateFlags::apply(pipeline::TranslateOptions base) const {
  for (const auto& [field, value] : values_) {
    const pipeline::OptionSpec& spec = pipeline::option_spec(field);
    if (spec.set != nullptr) spec.set(base, value);
  }
  return base;
}

pipeline::FrontOptions TranslateFlags::front() const {
  pipeline::FrontOptions front;
  for (const auto& [field, value] : values_) {
    const pipeline::OptionSpec& spec = pipeline::option_spec(field);
    if (spec.set_front != nullptr) spec.set_front(front, value);
  }
  return front;
}

std::string describe_option_error(const pipeline::OptionError& e) {
  for (const pipeline::OptionSpec& spec : pipeline::option_table()) {
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
