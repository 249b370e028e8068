// Where the bundled default model lives: next to an installed binary, or in the source tree. ($NMT_MODEL
// comes first; CLI11 reads it as the value of -m, see kModelEnv and cli/commands/model_option.h.)
#pragma once

#include <string>

namespace front {

constexpr const char* kDefaultModelName = "general-en-de";
// The bundled models `--from/--to` and `nmt serve` choose from by language pair, the default first (the
// caption model multi30k-en-de is chosen by -m only).
constexpr const char* kRoutedBundledModels[] = {kDefaultModelName, "general-de-en"};
// The environment variable -m falls back to before the bundled model.
constexpr const char* kModelEnv = "NMT_MODEL";

// Where the bundled model `name` is (the first candidate holding one, else the source tree's). Never
// throws; the loader reports a missing model.
std::string bundled_model_dir(const std::string& name);
// The directory `-m` defaults to without $NMT_MODEL: bundled_model_dir(kDefaultModelName).
std::string default_model_dir();

}  // namespace front
