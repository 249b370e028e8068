// `nmt models`: install models from the Hugging Face hub, a model listing or a local directory into the
// models home, list, remove and verify them. See docs/models.md.
#pragma once

#include <string>

#include "front/cli11_fwd.h"

namespace cli {

struct ModelsCommandOptions {
  // install
  std::string spec;  // ORG/NAME[@REV], a directory, the URL of a zip package, or a listing's pair or code
  std::string name;  // "": the repository's or directory's basename
  std::string dtype = "int8";
  bool force = false;
  std::string hub;    // "": $NMT_HUB, $HF_ENDPOINT, https://huggingface.co
  std::string token;  // "": $HF_TOKEN
  std::string source_lang, target_lang;
  // install, list: a model listing's URL or known word ("": $NMT_LISTING)
  std::string listing;
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
// `nmt models list --listing`: what a listing offers (models_listing.cc).
int run_models_list_listing(const ModelsCommandOptions& options);

}  // namespace cli
