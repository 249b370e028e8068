// `nmt convert --from marian-npz`, step 2: the architecture (special:model.yml inside the .npz) and the
// arrays, checked and mapped to ours: weights transposed to [out, in], a pad row appended to each vocabulary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/convert/checkpoint_writer.h"
#include "models/convert/marian_architecture.h"
#include "models/convert/marian_release.h"

namespace models {

// Marian's gemm-precision (decoder.yml) as far as the weights go: float products (int8 ones only for the
// model file's intgemm8 matrices), int8 for every product (int8, int8shift, int8shiftAll), or int8 by the
// model's precomputed activation multipliers, its "alphas" (int8Alpha, int8shiftAlpha, int8shiftAlphaAll).
enum class MarianGemm { kFloat32, kInt8, kInt8Alphas };

struct MarianModel {
  MarianConfig config;
  bool shared = false;                                   // one embedding matrix for both sides
  bool tied_output = false;                              // the output projection is the target embedding
  int64_t source_vocab_size = 0, target_vocab_size = 0;  // including the appended pad id
  std::vector<NamedTensor> tensors;
  bool all_source_f16 = true;  // decides the kept dtype
  // int8 as intgemm runs it (model_config.h Int8Scheme): the file holds intgemm8 matrices or gemm-precision
  // asks for int8. The tensors then carry their int8 values (NamedTensor::int8) for an i8 checkpoint.
  bool intgemm = false;
};

// Throws ModelError naming the .npz (or a vocabulary too large for the embeddings).
MarianModel map_marian_tensors(const std::string& npz_path, const MarianVocab& source_vocab,
                               const MarianVocab& target_vocab, MarianGemm gemm);

}  // namespace models
