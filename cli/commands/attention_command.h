// `nmt attention "TEXT" -o attn.svg`: translates one sentence and draws its attention as an SVG heatmap,
// or writes the weights as JSON (--format json).
#pragma once

#include <optional>
#include <string>

#include "front/attention_svg.h"
#include "front/cli11_fwd.h"
#include "front/translate_flags.h"

namespace cli {

struct AttentionCommandOptions {
  std::string model_dir;
  std::string text;  // "" (not given): read standard input
  std::string output = "-";
  std::string format = "svg";   // svg | json
  front::AttentionView view;    // which attention the SVG draws (--kind, --layer, --head)
  front::TranslateFlags flags;  // the translation options it shares with translate (-b, ...)
};

CLI::App* add_attention_command(CLI::App& app, AttentionCommandOptions& options);
int run_attention(const AttentionCommandOptions& options);

}  // namespace cli
