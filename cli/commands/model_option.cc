#include "cli/commands/model_option.h"

#include <CLI/CLI.hpp>

#include "front/model_path.h"

namespace cli {

CLI::Option* add_model_option(CLI::App& command, std::string& model_dir) {
  return command
      .add_option("-m,--model", model_dir,
                  "Model directory (default: $" + std::string(front::kModelEnv) + ", else the bundled " +
                      std::string(front::kDefaultModelName) + " model)")
      ->type_name("DIR")
      ->envname(front::kModelEnv);
}

}  // namespace cli
