// `nmt convert --from hf-marian`, step 1: config.json, generation_config.json and the vocabularies of a
// Hugging Face MarianMT directory, validated and turned into our model description.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/kernels.h"
#include "models/convert/convert_common.h"
#include "models/model_config.h"

namespace models {

// The config.json values the converter uses, validated.
struct HfConfig {
  int d_model = 0, heads = 0, encoder_layers = 0, decoder_layers = 0, ffn_dim = 0;
  core::Activation activation = core::Activation::kGelu;
  int max_positions = 0;
  bool scale_embedding = false, shared = true, tied = true;
  int vocab_size = 0, decoder_vocab_size = 0;
  int pad = 0, eos = 0, decoder_start = 0;
};

using PieceIds = std::vector<std::pair<std::string, int32_t>>;

struct HfSource {
  std::string config_path;   // SRC/config.json, named in errors
  std::string vocab_path;    // SRC/vocab.json
  std::string weights_path;  // SRC/model.safetensors, else SRC/pytorch_model.bin
  HfConfig config;
  ModelDescription description;
  PieceIds source_vocab;
  PieceIds target_vocab;  // empty when the vocabularies are shared
  std::vector<std::string> warnings;
};

// Throws ModelError naming the file for anything missing, unusable or unsupported.
// `options` supplies the languages when given (see apply_languages).
HfSource read_hf_source(const std::string& source_dir, const ConvertOptions& options);

}  // namespace models
