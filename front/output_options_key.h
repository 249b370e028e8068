// The key of everything that changes what a translation looks like: the resume manifest keeps it per
// file (a rerun with another value translates the file again) and the server batches only jobs of one key.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "pipeline/translator.h"

namespace front {

// What the output's shape adds to the translation options.
struct OutputShape {
  bool scores = false;           // --scores
  bool input_jsonl = false;      // --input-format jsonl
  bool output_jsonl = false;     // --output-format jsonl
  pipeline::FrontOptions front;  // the front end's output-changing options (--format)
};

// Every output-changing option of the table (resolved, where it applies) and the output's shape.
nlohmann::json output_options_json(const pipeline::TranslateOptions& options, const OutputShape& shape);
// output_options_json as one compact string, as the manifest stores it.
std::string output_options_key(const pipeline::TranslateOptions& options, const OutputShape& shape);

}  // namespace front
