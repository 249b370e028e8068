// `nmt convert`: import an OPUS-MT model (Hugging Face MarianMT or a native Marian release) into a model
// directory in our checkpoint format.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "models/convert/convert_marian_npz.h"

namespace cli {

struct ConvertCommandOptions {
  std::string from;  // "hf-marian" | "marian-npz" | "nmt"
  std::string source_dir;
  std::string output_dir;
  std::string dtype;  // "" (keep), "f32", "f16", "int8"
  bool force = false;
  models::MarianFiles marian;  // marian-npz only
  std::string vocab;           // marian-npz: --vocab (both sides)
  std::string source_lang;     // "": what the release says
  std::string target_lang;
};

CLI::App* add_convert_command(CLI::App& app, ConvertCommandOptions& options);
int run_convert(const ConvertCommandOptions& options);

}  // namespace cli
