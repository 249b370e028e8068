// `nmt convert --from hf-marian`, step 2: the tensors of model.safetensors or pytorch_model.bin, checked
// against the config and renamed to ours.
#pragma once

#include <string>
#include <vector>

#include "models/convert/checkpoint_writer.h"
#include "models/convert/hf_marian_config.h"

namespace models {

struct MappedTensors {
  std::vector<NamedTensor> tensors;
  bool all_source_f16 = true;  // decides the kept dtype
};

// Throws ModelError naming the file for a missing, misshapen, NaN-holding or unexpected tensor.
MappedTensors map_hf_tensors(const std::string& weights_path, const HfConfig& config);

}  // namespace models
