// `nmt translate`: stdin/stdout or files (stream mode), or whole directory trees (directory mode).
#pragma once

#include "cli/translate_command_options.h"
#include "front/cli11_fwd.h"

namespace cli {

CLI::App* add_translate_command(CLI::App& app, TranslateCommandOptions& options);
int run_translate(const TranslateCommandOptions& options);

}  // namespace cli
