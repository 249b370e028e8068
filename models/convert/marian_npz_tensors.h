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

struct MarianModel {
  MarianConfig config;
  bool shared = false;                                   // one embedding matrix for both sides
  bool tied_output = false;                              // the output projection is the target embedding
  int64_t source_vocab_size = 0, target_vocab_size = 0;  // including the appended pad id
  std::vector<NamedTensor> tensors;
  bool all_source_f16 = true;  // decides the kept dtype
};

// Throws ModelError naming the .npz (or a vocabulary too large for the embeddings).
MarianModel map_marian_tensors(const std::string& npz_path, const MarianVocab& source_vocab,
                               const MarianVocab& target_vocab);

}  // namespace models
