// What model.json says besides the tensor table: architecture, special ids, decoding defaults,
// tokenizer files. Parsed strictly (see docs/checkpoint.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/kernels.h"
#include "core/search.h"

namespace models {

enum class Positions { kSinusoidalInterleaved, kSinusoidalConcat, kSinusoidalMarian, kTable };

// What each decoder layer looks back with: self-attention over the earlier positions, or Marian's SSRU, a
// simpler simple recurrent unit with one state vector per layer (the Firefox students: docs/checkpoint.md).
enum class DecoderRecurrence { kSelfAttention, kSsru };

// How the products of i8 weights quantize their inputs (core::Int8InputScaling): nmt's rule, each row by
// its own range, with int8 attention caches; or intgemm's, as Marian runs its int8 models (the Firefox
// students): all the rows of a product by one range, or by the fixed multiplier NAME.input_multiplier
// gives, with f32 attention caches, plain or shifted (intgemm's Int8Shift: gemm-precision int8shift*).
enum class Int8Scheme { kNmt, kIntgemm, kIntgemmShifted };

// How attention rounds: nmt's kernels; or as marian-decoder's CPU build, for models read from Marian's
// files: each head's products by OpenBLAS's sgemm (the scale as its alpha, a decoder step's query one row)
// and core::marian_softmax, so the weights the next int8 product quantizes hold the same bits. Marian's
// rounding covers the encoder and the cross-attention; a decoder's self-attention keeps nmt's kernel.
enum class AttentionRounding { kNmt, kMarian };

struct ModelConfig {
  int d_model = 0;
  int n_heads = 0;
  int encoder_layers = 0;
  int decoder_layers = 0;
  int ffn_dim = 0;
  core::Activation activation = core::Activation::kRelu;
  bool pre_norm = false;
  bool final_norm = false;
  DecoderRecurrence decoder_recurrence = DecoderRecurrence::kSelfAttention;
  Int8Scheme int8_scheme = Int8Scheme::kNmt;
  AttentionRounding attention_rounding = AttentionRounding::kNmt;
  float layer_norm_eps = 1e-5f;
  Positions positions = Positions::kSinusoidalInterleaved;
  int max_positions = 0;
  bool scale_embedding = true;
  bool shared_embeddings = true;
  bool tied_output = true;
  bool output_bias = false;
  int src_vocab_size = 0;
  int tgt_vocab_size = 0;

  int head_dim() const { return d_model / n_heads; }
};

struct SpecialTokens {
  int32_t pad = 0;
  int32_t unk = 1;
  int32_t eos = 2;
  int32_t decoder_start = 0;
};

struct DecodingDefaults {
  int beam_size = 4;
  float length_penalty = 1.0f;
  float max_length_a = 0.0f;
  int max_length_b = 512;
  int max_length = 512;
  bool ban_unk = false;
  bool renormalize = true;
  int alignment_layer = -1;  // the decoder layer whose cross-attention aligns words; -1: the last
  int alignment_head = -1;   // that layer's head that aligns (guided alignment trains one); -1: all, averaged
  float repetition_penalty = 1.0f;  // loop guards (core::SearchOptions); 1 and 0: off
  int no_repeat_ngram_size = 0;
  core::BeamRules beam_rules = core::BeamRules::kHuggingFace;  // CTranslate2's for models converted from it
};

struct TokenizerFiles {  // file names relative to the model directory; vocab names may be empty
  std::string source_spm;
  std::string target_spm;
  std::string source_vocab;
  std::string target_vocab;
  bool add_eos = true;
};

struct ModelDescription {
  std::string source_lang;  // BCP 47 tags ("en", "de"); "" when unknown
  std::string target_lang;
  ModelConfig config;
  SpecialTokens tokens;
  DecodingDefaults decoding;
  TokenizerFiles tokenizer;
};

// Whether `tag` looks like a BCP 47 language tag: 2-3 letters, then subtags of 1-8 letters or digits
// joined by '-' or '_' ("en", "pt-BR", "zh_Hant").
bool is_language_tag(const std::string& tag);

// The languages an OPUS-MT name gives ("Helsinki-NLP/opus-mt-en-de", a directory "opus-mt-fr-en" or
// "en-de"): {source, target}, each "" unless a plain language tag (multilingual groups such as "ROMANCE"
// are not one language).
std::pair<std::string, std::string> languages_from_model_name(const std::string& name);

// `where` names the file in error messages. Checks ranges and cross-field consistency.
ModelDescription parse_description(const nlohmann::json& meta, const std::string& where);

// The inverse, for writers (converters, tests).
nlohmann::json description_to_json(const ModelDescription& description);

const char* positions_name(Positions p);
const char* activation_name(core::Activation a);
const char* decoder_recurrence_name(DecoderRecurrence r);
const char* int8_scheme_name(Int8Scheme s);
const char* attention_rounding_name(AttentionRounding r);

}  // namespace models
