#include "front/output_options_key.h"

#include <nlohmann/json.hpp>

#include "pipeline/option_table.h"

namespace front {

namespace {

nlohmann::json to_json(const pipeline::OptionValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

}  // namespace

nlohmann::json output_options_json(const pipeline::TranslateOptions& options, const OutputShape& shape) {
  nlohmann::json j = nlohmann::json::object();
  for (const pipeline::OptionSpec& spec : pipeline::option_table()) {
    if (!spec.changes_output) continue;
    if (spec.get == nullptr) {
      j[std::string(spec.field)] = to_json(spec.get_front(shape.front));
      continue;
    }
    const bool applies = spec.applies == nullptr || spec.applies(options);
    j[std::string(spec.field)] = applies ? to_json(spec.get(options)) : nlohmann::json(nullptr);
  }
  // The loaded terms too, not only the file's name: an edited glossary translates the file again.
  if (options.glossary_terms) j["glossary_terms"] = options.glossary_terms->canonical();
  j["sampling"] = options.sampling.enabled;  // set by the sampling options above
  j["scores"] = shape.scores;
  j["input_format"] = shape.input_jsonl ? "jsonl" : "text";
  j["output_format"] = shape.output_jsonl ? "jsonl" : "text";
  return j;
}

std::string output_options_key(const pipeline::TranslateOptions& options, const OutputShape& shape) {
  return output_options_json(options, shape).dump();
}

}  // namespace front
