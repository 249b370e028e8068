// `-m,--model DIR`, the option of every command that takes a model.
#pragma once

#include <string>

#include "front/cli11_fwd.h"

namespace cli {

// `-m,--model DIR` with its $NMT_MODEL fallback: every command that takes a model registers it here, so
// all take it alike.
CLI::Option* add_model_option(CLI::App& command, std::string& model_dir);

}  // namespace cli
