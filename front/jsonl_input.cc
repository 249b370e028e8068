#include "front/jsonl_input.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_depth.h"
#include "pipeline/option_table.h"

namespace front {

namespace {

// A line break inside would end the output line early (one output line per input line).
bool is_one_line(const std::string& text) {
  return text.find_first_of(std::string("\n\r\0", 3)) == std::string::npos;
}

bool is_blank(const std::string& text) { return text.find_first_not_of(" \t\f\v") == std::string::npos; }

// The error of a malformed field, or "" when `j` is a valid request (then `r` holds it).
std::string read_request(const nlohmann::json& j, const pipeline::Translator& translator,
                         const pipeline::TranslateOptions& o, JsonlRequest& r) {
  if (!j.is_object()) return "expected a JSON object with \"text\", got " + std::string(j.type_name());
  for (const auto& field : j.items()) {
    const std::string& key = field.key();
    if (key != "text" && key != "prefix" && key != "beam_size" && key != "glossary")
      return "unknown field \"" + key + "\" (known: text, prefix, beam_size, glossary)";
  }
  const auto text = j.find("text");
  if (text == j.end()) return "missing \"text\"";
  if (!text->is_string()) return "\"text\" must be a string, got " + std::string(text->type_name());
  r.text = text->get<std::string>();
  if (!is_one_line(r.text)) return "\"text\" holds a line break or NUL (one line per object)";
  if (const auto prefix = j.find("prefix"); prefix != j.end()) {
    if (!prefix->is_string()) return "\"prefix\" must be a string, got " + std::string(prefix->type_name());
    r.controls.prefix = prefix->get<std::string>();
    if (!is_one_line(r.controls.prefix)) return "\"prefix\" holds a line break or NUL";
    if (!r.controls.prefix.empty() && is_blank(r.text)) return "\"prefix\" on a blank text";
    try {
      translator.prefix_ids(r.controls.prefix);
    } catch (const core::Error& e) {
      return "\"prefix\": " + std::string(e.what());
    }
  }
  if (const auto beam = j.find("beam_size"); beam != j.end()) {
    // The range is the table's (as for -b); the bounds from the run's other options come after.
    const pipeline::OptionSpec& spec = pipeline::option_spec("beam_size");
    if (!beam->is_number_integer()) return "\"beam_size\" " + pipeline::range_error(spec, std::nan(""));
    const int64_t value = beam->get<int64_t>();
    const std::string got = ", got " + std::to_string(value);
    if (const std::string e = pipeline::range_error(spec, value); !e.empty())
      return "\"beam_size\" " + e + got;
    if (const std::string rule = pipeline::beam_rule_error(o, value); !rule.empty())
      return "\"beam_size\" " + rule + got;
    r.controls.beam_size = static_cast<int>(value);
  }
  if (const auto glossary = j.find("glossary"); glossary != j.end()) {
    if (o.sampling.enabled) return "\"glossary\" cannot be used with sampling";
    return read_glossary_field(*glossary, r.controls.glossary);
  }
  return "";
}

}  // namespace

std::string read_glossary_field(const nlohmann::json& value, pipeline::Glossary& glossary) {
  if (!value.is_object())
    return "\"glossary\" must be an object of source term -> target, got " + std::string(value.type_name());
  for (const auto& item : value.items()) {
    if (!item.value().is_string())
      return "\"glossary\": the target of \"" + item.key() + "\" must be a string";
    try {
      glossary.add_pair(item.key(), item.value().get<std::string>(), "\"glossary\" \"" + item.key() + "\"");
    } catch (const core::UsageError& e) {
      return e.what();
    }
  }
  return "";
}

JsonlRequest parse_jsonl_request(const std::string& line, const pipeline::Translator& translator,
                                 const pipeline::TranslateOptions& options) {
  JsonlRequest r;
  // Checked before parsing: the parser's tree takes many times the line's bytes.
  if (line.size() > kMaxJsonlLineBytes) {
    r.error = "line of " + std::to_string(line.size()) + " bytes is longer than the " +
              std::to_string(kMaxJsonlLineBytes >> 20) + " MiB a JSON line may hold";
    return r;
  }
  if (core::json_nests_deeper_than(line, kMaxJsonlDepth)) {
    r.error = "JSON nested more than " + std::to_string(kMaxJsonlDepth) + " levels deep";
    return r;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at ...": keep the words.
    const std::string what = e.what();
    const size_t words = what.find("] ");
    r.error = "not valid JSON: " + what.substr(words == std::string::npos ? 0 : words + 2);
    return r;
  }
  JsonlRequest parsed;
  r.error = read_request(j, translator, options, parsed);
  return r.error.empty() ? parsed : r;
}

}  // namespace front
