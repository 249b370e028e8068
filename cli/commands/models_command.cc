#include "cli/commands/models_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/exit_codes.h"
#include "models/hub/hub_repo.h"
#include "models/hub/model_listing.h"

namespace cli {

namespace {

// "firefox (Firefox Translations' Remote Settings), ...": the listings known by a word.
std::string known_listings() {
  std::string text;
  for (const hub::KnownListing& known : hub::kKnownListings)
    text += std::string(text.empty() ? "" : ", ") + known.word + " (" + known.what + ")";
  return text;
}

}  // namespace

CLI::App* add_models_command(CLI::App& app, ModelsCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "models", "Install models from the Hugging Face hub or a listing, list, remove, verify");
  cmd->require_subcommand(1);
  o.install = cmd->add_subcommand("install", "Download (or read) a model, convert it and install it");
  o.install
      ->add_option("spec", o.spec,
                   "ORG/NAME[@REVISION] on the hub, a local directory nmt convert reads, the https URL of "
                   "a .zip or .tar.gz of one, or a language pair (en-de) or code (en-de-tiny) in the --listing")
      ->required();
  o.install->add_option(
      "--name", o.name,
      "The installed model's name (default: the repository's or directory's; a listing's code, "
      "PAIR-firefox for Remote Settings)");
  o.install->add_option("--dtype", o.dtype, "Weight type installed: int8 (default), f16 or f32")
      ->check(CLI::IsMember({"f32", "f16", "int8"}));
  o.install->add_flag("--force", o.force, "Replace a model installed under the same name");
  o.install->add_option("--hub", o.hub,
                        "The hub's URL (default: $NMT_HUB, $HF_ENDPOINT, https://huggingface.co)");
  const std::string listing_help =
      std::string("A model listing to find SPEC in: a translateLocally repository or a ") +
      "Remote Settings server's URL, or " + known_listings() + " (default: $" + hub::kListingEnv + ")";
  o.install->add_option("--listing", o.listing, listing_help);
  o.install->add_option("--token", o.token,
                        "Access token for private or gated repositories (default: $HF_TOKEN, else the one "
                        "huggingface-cli login saved)");
  o.install->add_option("--source-lang", o.source_lang,
                        "The model's source language, when the repository does not say (BCP 47: fr, pt-BR)");
  o.install->add_option("--target-lang", o.target_lang, "The model's target language, as --source-lang");

  o.list = cmd->add_subcommand("list", "List the installed and bundled models");
  o.list->add_flag("--json", o.json, "One JSON array of the models instead of a table");
  o.list->add_option("--listing", o.listing,
                     "List what this listing offers instead (as install's --listing)");

  o.remove = cmd->add_subcommand("remove", "Remove an installed model");
  o.remove->add_option("model", o.which, "The model's name, or its pair (fr-en) when one model has it")
      ->required();

  o.verify = cmd->add_subcommand("verify", "Re-hash installed models against their install.json");
  o.verify->add_option("model", o.which, "The model's name or pair (default: every installed model)");
  // Set last: CLI11 copies a command's footer into the subcommands added after it.
  cmd->footer(
      "Models live in $NMT_MODELS_DIR, else $XDG_DATA_HOME/nmt/models, else\n"
      "~/.local/share/nmt/models; the bundled models count as installed.\n"
      "Downloads come from --hub, $NMT_HUB, $HF_ENDPOINT or https://huggingface.co;\n"
      "HF_HUB_OFFLINE=1 installs from the Hugging Face cache only.\n"
      "With --listing (or $NMT_LISTING) SPEC is a pair or code in that listing;\n"
      "a pair picks base over tiny, then the newest version.\n"
      "Exit code 4: a download failed (HTTP error, no network, a wrong checksum), or\n"
      "the listing has no such pair or code.\n"
      "See docs/models.md.\n"
      "\n"
      "Examples:\n"
      "  nmt models install Helsinki-NLP/opus-mt-fr-en\n"
      "  nmt models install Helsinki-NLP/opus-mt-en-de@main --dtype f32 --name de-f32\n"
      "  nmt models install ./opus-mt-en-de      (a downloaded model directory)\n"
      "  nmt models install https://object.pouta.csc.fi/OPUS-MT-models/en-de/opus-2020-02-26.zip\n"
      "  nmt models install en-de --listing firefox\n"
      "  nmt models install en-de-tiny --listing translatelocally\n"
      "  nmt models list --listing firefox\n"
      "  nmt models list\n"
      "  nmt models remove fr-en\n"
      "  nmt models verify");
  return cmd;
}

int run_models(const ModelsCommandOptions& o) {
  try {
    if (o.install->parsed()) return run_models_install(o);
    if (o.list->parsed()) return o.listing.empty() ? run_models_list(o) : run_models_list_listing(o);
    if (o.remove->parsed()) return run_models_remove(o);
    return run_models_verify(o);
  } catch (const hub::DownloadError& e) {
    std::cerr << "nmt: error: " << e.what() << "\n";
    return kExitDownload;
  }
}

}  // namespace cli
