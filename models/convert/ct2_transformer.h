// A CTranslate2 TransformerSpec (model.bin) as our network and tensors: the variants CTranslate2 stores
// for translation models (post-norm Marian/OPUS-MT, pre-norm OpenNMT-py with final norms, relu/gelu/
// swish, shared or separate embeddings, sinusoidal or stored positions). See docs/convert.md.
#pragma once

#include <string>
#include <vector>

#include "models/convert/checkpoint_writer.h"
#include "models/convert/ct2_model_bin.h"
#include "models/model_config.h"

namespace models {

// Rows of the position table written for a model whose positions CTranslate2 computes (its default
// max_input_length).
constexpr int kCt2SinusoidPositions = 1024;

struct Ct2Network {
  ModelConfig config;  // vocabulary sizes include the start row below
  std::vector<NamedTensor> tensors;
  // decoder/start_from_zero_embedding (CTranslate2's Marian models): the decoder starts from an all-zero
  // embedding, the row appended below.
  bool zero_start = false;
  // The target side gained an all-zero row (id: the target vocabulary's size) with output bias -65504, so
  // that it takes no probability mass: the zero start row, or a pad id for a vocabulary without one.
  bool extra_row = false;
  int alignment_layer = -1;                // 0-based, -1: the last
  Ct2DType weight_dtype = Ct2DType::kF32;  // of the linear weights: int8, int16, float16 or float32
  std::vector<std::string> warnings;
};

// Refuses (ModelError naming the file and the spec or variable) anything but a TransformerSpec we can
// represent, and any variable it does not consume.
// `pad_row`: append the extra row even without start_from_zero_embedding.
Ct2Network map_ct2_transformer(const Ct2ModelBin& bin, float layer_norm_epsilon, bool pad_row = false);

}  // namespace models
