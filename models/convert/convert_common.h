// What both converters share: their options and report, the output directory check, the dtype choice,
// and writing a model directory. See docs/convert.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/checkpoint.h"
#include "models/convert/checkpoint_writer.h"
#include "models/model_config.h"

namespace models {

enum class ConvertDType { kKeep, kF32, kF16, kI8 };  // kKeep: f16 if every source weight is f16, else f32

struct ConvertOptions {
  std::string output_dir;  // must be new or empty unless `force`
  bool force = false;      // allow a non-empty output directory (its model files are replaced)
  ConvertDType dtype = ConvertDType::kKeep;
  std::string source_lang;  // the model's languages when the release does not say (or says wrongly); "": keep
  std::string target_lang;
};

struct ConvertReport {
  ModelDescription description;
  DType dtype = DType::kF32;
  size_t tensors = 0;
  uint64_t parameters = 0;
  // Source settings that the checkpoint cannot express and were left out (decoding options only:
  // anything that changes the network is refused instead).
  std::vector<std::string> warnings;
};

namespace convert_detail {

// UsageError unless `dir` is absent, an empty directory, or (with force) any directory; refuses the
// source directory itself.
void check_output_dir(const std::string& dir, const std::string& source_dir, bool force);

struct OutputFiles {
  std::vector<std::pair<std::string, std::string>> copies;    // (source path, name in the model dir)
  std::vector<std::pair<std::string, std::string>> contents;  // (name in the model dir, bytes)
};

// Creates the directory, removes a stale model.json (force), writes the tokenizer files, then
// weights.bin and model.json (last).
void write_model(const ConvertOptions& options, const ModelDescription& description,
                 const std::vector<NamedTensor>& tensors, DType dtype, const OutputFiles& files);

// {"piece": id, ...} in id order, one entry per line.
std::string vocab_json(const std::vector<std::pair<std::string, int32_t>>& entries);

DType choose_dtype(ConvertDType requested, bool all_source_weights_f16);

// Something is at `path` (a FIFO or device too: reading it then says what it is, instead of "missing").
bool path_exists(const std::string& path);
// A converter input of at most kMaxConverterTextBytes, opened through core::read_regular_file (a FIFO,
// device or directory is refused, never read); `what` names its role. ModelError naming the file.
constexpr uint64_t kMaxConverterTextBytes = 64u << 20;
std::string read_text_file(const std::string& path, std::string_view what);

// `entry` (a file named by `key` in `where`, e.g. decoder.yml's models or vocabs) as a path inside the
// release directory `dir`. Throws ModelError when it is absolute, climbs out with "..", or resolves
// (through symlinks) outside `dir`: a release names its own files only.
std::string path_inside(const std::string& dir, const std::string& entry, const std::string& where,
                        const std::string& key);

// The Transformer every Marian model is, whichever files hold it: post-norm, no final norm, an output
// bias, with the sizes and activation of `c` (a MarianConfig from model.yml or the Hugging Face port's
// HfConfig). Positions, LayerNorm eps, embedding scale, the position limit and the vocabularies differ
// between native Marian and the port: the caller sets them.
template <typename MarianSizes>
ModelConfig marian_network(const MarianSizes& c) {
  ModelConfig mc;
  mc.d_model = c.d_model;
  mc.n_heads = c.heads;
  mc.encoder_layers = c.encoder_layers;
  mc.decoder_layers = c.decoder_layers;
  mc.ffn_dim = c.ffn_dim;
  mc.activation = c.activation;
  mc.pre_norm = false;
  mc.final_norm = false;
  mc.output_bias = true;
  return mc;
}

// Throws ModelError("WHERE: tensor 'NAME' contains NaN") if it does.
void check_no_nan(const std::vector<float>& values, const std::string& where, const std::string& name);

// The report on the model written to options.output_dir (reopened: its parameters are counted as
// `nmt info` counts them).
ConvertReport make_report(const ConvertOptions& options, const ModelDescription& description,
                          const std::vector<NamedTensor>& tensors, DType dtype,
                          std::vector<std::string> warnings);

}  // namespace convert_detail

}  // namespace models
