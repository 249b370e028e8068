// Where the bundled default model lives: $NMT_MODEL, next to an installed binary, or in the source tree.
#pragma once

#include <string>

namespace cli {

constexpr const char* kDefaultModelName = "multi30k-en-de";

// The directory `-m` defaults to. Never throws; the loader reports a missing model.
std::string default_model_dir();

}  // namespace cli
