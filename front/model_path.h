// Where the bundled default model lives: next to an installed binary, or in the source tree. ($NMT_MODEL
// comes first; CLI11 reads it as the value of -m, see kModelEnv.)
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace front {

constexpr const char* kDefaultModelName = "general-en-de";
// The environment variable -m falls back to before the bundled model.
constexpr const char* kModelEnv = "NMT_MODEL";

// The directory `-m` defaults to without $NMT_MODEL. Never throws; the loader reports a missing model.
std::string default_model_dir();

// `-m,--model DIR` with its $NMT_MODEL fallback: every command that takes a model registers it here, so
// all take it alike.
CLI::Option* add_model_option(CLI::App& command, std::string& model_dir);

}  // namespace front
