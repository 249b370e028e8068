// Where the bundled default model lives: next to an installed binary, or in the source tree. ($NMT_MODEL
// comes first; CLI11 reads it as the value of -m, see kModelEnv and cli/commands/model_option.h.)
#pragma once

#include <string>

namespace front {

constexpr const char* kDefaultModelName = "general-en-de";
// The environment variable -m falls back to before the bundled model.
constexpr const char* kModelEnv = "NMT_MODEL";

// The directory `-m` defaults to without $NMT_MODEL. Never throws; the loader reports a missing model.
std::string default_model_dir();

}  // namespace front
