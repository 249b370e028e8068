// What `nmt translate` was asked to do: every room of cli/ reads these (commands fill them, files/ and io/
// act on them).
#pragma once

#include <string>
#include <vector>

#include "front/output_options_key.h"
#include "front/translate_flags.h"
#include "pipeline/translator.h"

namespace cli {

enum class TextFormat { kText, kJsonl };  // --input-format / --output-format

struct TranslateCommandOptions {
  std::string model_dir;
  // --from/--to choose the model by language (front/model_catalog.h) when -m is not given; through
  // `pivot` when no model translates the pair itself ("" with --no-pivot).
  std::string from;
  std::string to;
  std::string pivot = "en";
  bool no_pivot = false;
  std::string first_leg_dir;       // the pivot's first model, "" without one (directory mode's manifest)
  std::vector<std::string> texts;  // text arguments: each one input line, instead of -i
  std::string input = "-";
  bool input_given = false;  // -i (refused with text arguments)
  std::string output = "-";
  std::string input_dir;
  std::string output_dir;
  std::string glob;
  std::string shard = "0/1";
  bool overwrite = false;
  bool scores = false;
  bool stats = false;  // print a JSON line of timings and counts on stderr at the end
  std::string report;  // --report FILE: the flags' counts and worst lines as JSON (cli/io/quality_report.h)
  bool progress = false;  // draw progress on stderr even when it is not a terminal
  bool quiet = false;     // no progress, no warnings (errors still)
  int threads = 0;        // 0: all cores
  TextFormat input_format = TextFormat::kText;
  TextFormat output_format = TextFormat::kText;
  std::string max_memory;       // --max-memory as given; "" = default_max_memory() (cli/memory_limit.h)
  front::TranslateFlags flags;  // as given
  pipeline::TranslateOptions translate;  // the flags resolved against the model, once it loads
  pipeline::FrontOptions front;          // the flags that act around the translator (--format, ...)
};

// The part of the output options key (front/output_options_key.h) that the command's formats add.
inline front::OutputShape output_shape(const TranslateCommandOptions& o) {
  return {o.scores, o.input_format == TextFormat::kJsonl, o.output_format == TextFormat::kJsonl, o.front};
}

}  // namespace cli
