// `nmt translate --input-format jsonl`: each input line is an object {"text": "...", "prefix": "...",
// "beam_size": N, "glossary": {"SOURCE": "TARGET|FORMS"}}; text is required, the others optional.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/translator.h"

namespace front {

// Bounds on one input line, so a hostile line costs a per-line error rather than gigabytes of parse tree.
constexpr std::size_t kMaxJsonlLineBytes = std::size_t{4} << 20;
constexpr std::size_t kMaxJsonlDepth = 64;  // a request nests 1 level

struct JsonlRequest {
  std::string text;
  pipeline::LineControls controls;
  std::string error;  // not empty: the line is malformed (then text and controls are empty)
};

// Parses and checks one line: at most kMaxJsonlLineBytes and kMaxJsonlDepth deep, valid JSON, an object of
// known fields, text a string of one line, prefix one the target vocabulary spells exactly (and not on a
// blank text), beam_size a whole number in 1..256, at least --n-best (1 with sampling). `options` are
// resolved.
// A request's "glossary" (a JSON line's, the server's): an object of source term -> target forms
// ("Vertrag|Verträge"), added to `glossary`. Returns what is wrong, "" when it is valid.
std::string read_glossary_field(const nlohmann::json& value, pipeline::Glossary& glossary);

JsonlRequest parse_jsonl_request(const std::string& line, const pipeline::Translator& translator,
                                 const pipeline::TranslateOptions& options);

}  // namespace front
