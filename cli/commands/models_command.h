// `nmt models`: install models from the Hugging Face hub or a local directory into the models home, list,
// remove and verify them. See docs/models.md.
#pragma once

#include <string>

#include "front/cli11_fwd.h"

namespace cli {

struct ModelsCommandOptions {
  // install
  std::string spec;  // ORG/NAME[@REV], a directory, or the URL of a zip package
  std::string name;  // "": the repository's or directory's basename
  std::string dtype = "int8";
  bool force = false;
  std::string hub;    // "": $NMT_HUB, $HF_ENDPOINT, https://huggingface.co
  std::string token;  // "": $HF_TOKEN
  std::string source_lang, target_lang;
  // list
  bool json = false;
  // remove (required), verify (optional): a model's name or a pair such as fr-en
  std::string which;
  // The subcommands, to tell which one was given.
  CLI::App *install = nullptr, *list = nullptr, *remove = nullptr, *verify = nullptr;
};

CLI::App* add_models_command(CLI::App& app, ModelsCommandOptions& options);
int run_models(const ModelsCommandOptions& options);

// The subcommands' work (models_install.cc, models_store_commands.cc).
int run_models_install(const ModelsCommandOptions& options);
int run_models_list(const ModelsCommandOptions& options);
int run_models_remove(const ModelsCommandOptions& options);
int run_models_verify(const ModelsCommandOptions& options);

}  // namespace cli
