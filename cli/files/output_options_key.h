// The resume manifest's key of a directory run: everything that changes what a file's translation looks
// like, so a rerun with another value translates the file again.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cli/translate_command_options.h"

namespace cli {

// Every output-changing option of the table (resolved, where it applies) and the output format flags.
nlohmann::json output_options_json(const TranslateCommandOptions& options);
// output_options_json as one compact string, as the manifest stores it.
std::string output_options_key(const TranslateCommandOptions& options);

}  // namespace cli
