// The architecture of a Marian transformer, from the special:model.yml its .npz carries: what nmt can run,
// everything else refused by name.
#pragma once

#include <cstdint>
#include <vector>

#include "core/kernels.h"
#include "models/convert/marian_yaml.h"

namespace models {

struct MarianConfig {
  int d_model = 0, heads = 0, encoder_layers = 0, decoder_layers = 0, ffn_dim = 0;
  core::Activation activation = core::Activation::kSwish;
  bool tied_all = false, tied_src = false, tied = false, omit_bias = false;
  std::vector<int64_t> dim_vocabs;
  int alignment_layer = -1;  // transformer-guided-alignment-layer, 0-based; -1: "last"
  bool ssru = false;         // decoder layers with an SSRU (dec-cell) instead of self-attention
};

// Throws ModelError naming the key of anything unsupported.
MarianConfig parse_model_yml(const FlatYaml& model_yml);

}  // namespace models
