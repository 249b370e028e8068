#include "cli/commands/shortlist_command.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "cli/commands/model_option.h"
#include "core/error.h"
#include "front/model_path.h"
#include "pipeline/translator.h"

namespace cli {

namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::UsageError("cannot read '" + path + "'");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

CLI::App* add_shortlist_command(CLI::App& app, ShortlistCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "shortlist", "Build a model's lexical shortlist from parallel text (used by translate --shortlist)");
  add_model_option(*cmd, o.model_dir);
  cmd->add_option("--source", o.source, "Source sentences, one per line")->required()->type_name("FILE");
  cmd->add_option("--target", o.target, "Their translations, line by line")->required()->type_name("FILE");
  cmd->add_option("-k,--per-source", o.build.k, "Target pieces kept per source piece")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--frequent", o.build.n_frequent, "Most frequent target pieces every batch keeps")
      ->check(CLI::Range(0, 10000000))
      ->capture_default_str();
  cmd->add_option(
         "--score", o.score,
         "How pairs are ranked: dice = Dice coefficient 2 c(s,t) / (c(s) + c(t)) over sentence pairs, "
         "conditional = p(target | source)")
      ->check(CLI::IsMember({"conditional", "dice"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o.output, "Where to write it (default: MODEL/shortlist.bin)")
      ->type_name("FILE");
  return cmd;
}

int run_shortlist(const ShortlistCommandOptions& o) {
  const std::string dir = o.model_dir.empty() ? front::default_model_dir() : o.model_dir;
  const std::vector<std::string> source_lines = read_lines(o.source), target_lines = read_lines(o.target);
  if (source_lines.size() != target_lines.size())
    throw core::UsageError("--source has " + std::to_string(source_lines.size()) + " lines, --target " +
                           std::to_string(target_lines.size()) + ": they must be line-aligned");
  const pipeline::Translator translator(dir);
  std::vector<std::vector<int32_t>> sources, targets;
  for (size_t i = 0; i < source_lines.size(); ++i) {
    sources.push_back(translator.tokenizer().encode(source_lines[i]));
    targets.push_back(translator.tokenizer().encode_target(target_lines[i]));
  }
  models::ShortlistBuildOptions build = o.build;
  build.score =
      o.score == "conditional" ? models::ShortlistScore::kConditional : models::ShortlistScore::kDice;
  const models::ModelConfig& c = translator.model().config();
  const models::Shortlist shortlist =
      models::build_shortlist(sources, targets, c.src_vocab_size, c.tgt_vocab_size, build);
  const std::string path = o.output.empty() ? dir + "/" + models::Shortlist::kFileName : o.output;
  shortlist.write(path);
  size_t pairs = 0;
  for (int32_t s = 0; s < shortlist.src_vocab(); ++s) pairs += shortlist.end(s) - shortlist.begin(s);
  std::cerr << "nmt: wrote " << path << ": " << pairs << " pairs from " << sources.size()
            << " sentence pairs (k " << build.k << ", " << shortlist.frequent().size() << " frequent)\n";
  return 0;
}

}  // namespace cli
