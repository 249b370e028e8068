// `nmt attention "TEXT" -o attn.svg`: translates one sentence and draws its attention as an SVG heatmap,
// or writes the weights as JSON (--format json).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/translate_flags.h"
#include "pipeline/attention_translation.h"

namespace cli {

struct AttentionCommandOptions {
  std::string model_dir;
  std::string text;  // "" (not given): read standard input
  std::string output = "-";
  std::string format = "svg";  // svg | json
  std::string kind = "cross";  // cross | encoder | decoder (the SVG's panels)
  int layer = -1;              // -1: every layer
  int head = -1;               // -1: every head and their mean
  TranslateFlags flags;        // the translation options it shares with translate (-b, ...)
};

CLI::App* add_attention_command(CLI::App& app, AttentionCommandOptions& options);
int run_attention(const AttentionCommandOptions& options);

// The SVG form of one kind of attention (the JSON form: cli/io/attention_json.h). UsageError when a side has
// more than 300 pieces.
std::string attention_svg(const pipeline::AttentionTranslation& t, const std::string& source_text,
                          const AttentionCommandOptions& options);

}  // namespace cli
