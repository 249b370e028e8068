// The sampling flags of `nmt translate`: --sampling-topk, --sampling-topp, --sampling-temperature, --seed.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/translate_command.h"

namespace cli {

// Any of the three --sampling-* flags turns sampling on. run_translate refuses --seed without them (it
// would do nothing) and picks a random seed when none is given.
void add_sampling_flags(CLI::App& command, TranslateCommandOptions& options);

}  // namespace cli
