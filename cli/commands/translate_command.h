// `nmt translate`: stdin/stdout or files (stream mode), or whole directory trees (directory mode).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/translate_command_options.h"

namespace cli {

CLI::App* add_translate_command(CLI::App& app, TranslateCommandOptions& options);
int run_translate(const TranslateCommandOptions& options);

}  // namespace cli
