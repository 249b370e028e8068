#include "cli/info_command.h"

#include <sys/stat.h>

#include <iomanip>
#include <iostream>
#include <set>

#include "cli/model_path.h"
#include "models/checkpoint.h"

namespace cli {

namespace {

uint64_t file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace

CLI::App* add_info_command(CLI::App& app, std::string& model_dir) {
  CLI::App* cmd = app.add_subcommand("info", "Show a model's configuration, parameter count and size");
  add_model_option(*cmd, model_dir);
  cmd->add_option("model", model_dir, "The model directory, as with -m")->type_name("DIR");
  return cmd;
}

int run_info(const std::string& dir_arg) {
  const std::string dir = dir_arg.empty() ? default_model_dir() : dir_arg;
  const models::Checkpoint ckpt(dir);
  const models::ModelDescription& d = ckpt.description();
  uint64_t params = 0;
  std::string dtypes;
  for (const auto& t : ckpt.tensors()) {
    uint64_t n = 1;
    for (int64_t x : t.shape) n *= static_cast<uint64_t>(x);
    params += n;
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
            << "size on disk: " << std::setprecision(1) << disk / 1048576.0 << " MiB\n"
            << "config: " << models::description_to_json(d)["config"].dump() << "\n"
            << "tokens: " << models::description_to_json(d)["tokens"].dump() << "\n"
            << "decoding defaults: " << models::description_to_json(d)["decoding"].dump() << "\n"
            << "tokenizer: " << models::description_to_json(d)["tokenizer"].dump() << "\n";
  return 0;
}

}  // namespace cli
