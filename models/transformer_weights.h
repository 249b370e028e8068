// Raw pointers into the checkpoint for every weight, looked up by name and shape-checked.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "core/int8_gemm.h"
#include "core/packed_gemm.h"
#include "models/checkpoint.h"

namespace models {

struct Linear {                   // y = x W^T + b
  const float* weight = nullptr;  // [out, in]; null when packed
  const float* bias = nullptr;    // [out] or null
  int out = 0;
  int in = 0;
  const core::PackedMatrix* packed = nullptr;  // the same W in panels, when core's products use them
  const core::Int8Matrix* int8 = nullptr;      // W in int8 panels, when the checkpoint stores it as i8
};

// A [vocab, d] embedding: plain rows, or (tied to a packed output projection) that projection's packed
// copy, so the table is held in memory once.
struct Embedding {
  const float* table = nullptr;
  const core::PackedMatrix* packed = nullptr;
  const core::Int8Matrix* int8 = nullptr;  // an i8 table (dequantized row by row), tied or not
  // Row `id` into row[d].
  void copy_row(int id, int d, float* row) const;
};

struct Norm {
  const float* gamma = nullptr;  // [d]
  const float* beta = nullptr;   // [d]
};

struct AttentionWeights {
  Linear q, k, v, o;  // each [d, d]
  // q, k and v stacked as one [3d, d] product (row r of its output: q, k, v of row r side by side), when
  // packed and d is a multiple of the panel width; then q, k and v read its panels. Else packed is null.
  Linear qkv;
};

struct EncoderLayerWeights {
  AttentionWeights self_attn;
  Norm self_attn_norm;
  Linear fc1, fc2;  // [ffn, d], [d, ffn]
  Norm ffn_norm;
};

struct DecoderLayerWeights {
  AttentionWeights self_attn;  // empty in an SSRU decoder
  Norm self_attn_norm;         // around the self-attention or the SSRU
  // An SSRU decoder's recurrence (model_config.h): candidate W u (no bias) and forget gate Wf u + bf.
  Linear ssru_input, ssru_forget;  // each [d, d]; empty with self-attention
  AttentionWeights cross_attn;
  Norm cross_attn_norm;
  Linear fc1, fc2;
  Norm ffn_norm;
};

struct TransformerWeights {
  Embedding src_embed;                   // [src_vocab, d]
  Embedding tgt_embed;                   // [tgt_vocab, d]
  const float* src_positions = nullptr;  // [max_positions, d]
  const float* tgt_positions = nullptr;
  Linear output;  // [tgt_vocab, d], bias [tgt_vocab] or null
  std::vector<EncoderLayerWeights> encoder;
  std::vector<DecoderLayerWeights> decoder;
  Norm encoder_final, decoder_final;  // null unless config.final_norm
  core::PackedArena packed_arena;  // holds the panels, and the sinusoid table when positions are sinusoidal
  std::vector<std::unique_ptr<core::PackedMatrix>> packed;  // owns every Linear::packed
  std::vector<std::unique_ptr<core::Int8Matrix>> int8;      // owns every Linear::int8, Embedding::int8
  std::deque<std::vector<float>> stacked_biases;            // of the stacked products
};

// Looks up every tensor the config requires; throws ModelError naming a missing, misshapen or unexpected one.
TransformerWeights load_weights(Checkpoint& checkpoint);

}  // namespace models
