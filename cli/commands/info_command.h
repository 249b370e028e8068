// `nmt info [-m] [DIR]`: a model's config, parameter count and size.
#pragma once

#include <string>

#include "front/cli11_fwd.h"

namespace cli {

CLI::App* add_info_command(CLI::App& app, std::string& model_dir);
int run_info(const std::string& model_dir);

}  // namespace cli
