// `nmt convert`: import an OPUS-MT model (Hugging Face MarianMT, a native Marian release, a CTranslate2
// directory or an Argos Translate package) into a model directory in our checkpoint format.
#pragma once

#include <string>

#include "front/cli11_fwd.h"
#include "models/convert/convert_marian_npz.h"

namespace cli {

struct ConvertCommandOptions {
  std::string from;  // "hf-marian" | "marian-npz" | "ct2" | "argos" | "nmt"
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

// The layout of SOURCE when --from is not given, from the files it holds: a .argosmodel file or a
// directory with metadata.json and model/ is an Argos package, model.json is ours, model.bin beside
// config.json CTranslate2's, config.json alone a Hugging Face checkpoint, a *.npz a Marian release; an
// ORG/NAME that names no path is a Hugging Face repository in the cache.
std::string detect_layout(const std::string& source);
// Checks the options and converts, printing nothing (`nmt convert` and `nmt models install` share it).
models::ConvertReport convert_checkpoint(const ConvertCommandOptions& options);

}  // namespace cli
