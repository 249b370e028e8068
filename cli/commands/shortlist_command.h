// `nmt shortlist -m MODEL --source SRC --target TGT`: builds the model's lexical shortlist
// (models/shortlist.h) from parallel text and writes it into the model folder.
#pragma once

#include <string>

#include "front/cli11_fwd.h"
#include "models/shortlist_builder.h"

namespace cli {

struct ShortlistCommandOptions {
  std::string model_dir;
  std::string source, target;  // parallel text, one sentence per line
  std::string output;          // default: MODEL/shortlist.bin
  std::string score = "dice";
  models::ShortlistBuildOptions build;
};

CLI::App* add_shortlist_command(CLI::App& app, ShortlistCommandOptions& options);
int run_shortlist(const ShortlistCommandOptions& options);

}  // namespace cli
