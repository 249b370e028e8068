#include "front/model_option.h"

#include "front/model_path.h"

namespace front {

CLI::Option* add_model_option(CLI::App& command, std::string& model_dir) {
  return command
      .add_option("-m,--model", model_dir,
                  "Model directory (default: $" + std::string(kModelEnv) + ", else the bundled " +
                      std::string(kDefaultModelName) + " model)")
      ->type_name("DIR")
      ->envname(kModelEnv);
}

}  // namespace front
