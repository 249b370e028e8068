#include "cli/commands/info_command.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <set>

#include "cli/commands/model_option.h"
#include "front/model_path.h"
#include "models/checkpoint.h"
#include "models/parameter_count.h"

namespace cli {

namespace {

uint64_t file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// One "  key: value" line per field of a description section, strings unquoted, null as "(none)".
void print_section(std::ostream& out, const char* title, const nlohmann::json& section) {
  out << title << ":\n";
  for (const auto& [key, value] : section.items()) {
    out << "  " << key << ": "
        << (value.is_string() ? value.get<std::string>()
            : value.is_null() ? "(none)"
                              : value.dump())
        << "\n";
  }
}

}  // namespace

CLI::App* add_info_command(CLI::App& app, std::string& model_dir) {
  CLI::App* cmd = app.add_subcommand("info", "Show a model's configuration, parameter count and size");
  add_model_option(*cmd, model_dir);
  cmd->add_option("model", model_dir, "The model directory, as with -m")->type_name("DIR");
  return cmd;
}

int run_info(const std::string& dir_arg) {
  const std::string dir = dir_arg.empty() ? front::default_model_dir() : dir_arg;
  const models::Checkpoint ckpt(dir);
  const models::ModelDescription& d = ckpt.description();
  const uint64_t params = models::parameter_count(ckpt);
  std::string dtypes;
  for (const auto& t : ckpt.tensors()) {
    const char* name = models::dtype_name(t.dtype);
    if (dtypes.find(name) == std::string::npos) dtypes += dtypes.empty() ? name : std::string("+") + name;
  }
  uint64_t disk = file_size(ckpt.json_path()) + ckpt.blob_size();
  std::set<std::string> tokenizer_files = {d.tokenizer.source_spm, d.tokenizer.target_spm,
                                           d.tokenizer.source_vocab, d.tokenizer.target_vocab};
  for (const std::string& f : tokenizer_files) {
    if (!f.empty()) disk += file_size(dir + "/" + f);
  }
  const auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("(unknown)") : s; };
  std::cout << "model: " << dir << "\n"
            << "languages: " << or_unknown(d.source_lang) << " -> " << or_unknown(d.target_lang) << "\n"
            << "parameters: " << params << " (" << std::fixed << std::setprecision(1) << params / 1e6 << "M, "
            << dtypes << ")\n"
            << "size on disk: " << std::setprecision(1) << disk / 1048576.0 << " MiB\n";
  const nlohmann::json j = models::description_to_json(d);
  print_section(std::cout, "config", j["config"]);
  print_section(std::cout, "tokens", j["tokens"]);
  print_section(std::cout, "decoding defaults", j["decoding"]);
  print_section(std::cout, "tokenizer", j["tokenizer"]);
  return 0;
}

}  // namespace cli
