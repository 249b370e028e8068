#include "cli/files/output_options_key.h"

namespace cli {

namespace {

nlohmann::json to_json(const pipeline::OptionValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

}  // namespace

nlohmann::json output_options_json(const TranslateCommandOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  for (const pipeline::OptionSpec& spec : pipeline::option_table()) {
    if (!spec.changes_output) continue;
    const bool applies = spec.applies == nullptr || spec.applies(o.translate);
    j[std::string(spec.field)] = applies ? to_json(spec.get(o.translate)) : nlohmann::json(nullptr);
  }
  j["sampling"] = o.translate.sampling.enabled;  // set by the sampling options above
  j["scores"] = o.scores;
  j["input_format"] = o.input_format == TextFormat::kJsonl ? "jsonl" : "text";
  j["output_format"] = o.output_format == TextFormat::kJsonl ? "jsonl" : "text";
  return j;
}

std::string output_options_key(const TranslateCommandOptions& o) { return output_options_json(o).dump(); }

}  // namespace cli
