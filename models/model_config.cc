#include "models/model_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "models/decoding_ranges.h"
#include "models/json_fields.h"
#include "models/model_error.h"

namespace models {

namespace {

constexpr int64_t kMaxDim = 1 << 20;  // generous upper bounds that still reject nonsense
constexpr int64_t kMaxVocab = 1 << 24;
// config.int8_scheme's words, indexed by Int8Scheme.
constexpr const char* kInt8SchemeNames[] = {"nmt", "intgemm", "intgemm-shifted"};
// config.attention_rounding's words, indexed by AttentionRounding.
constexpr const char* kAttentionRoundingNames[] = {"nmt", "marian"};

// The enum value whose word, from `names` (indexed by the enum), field `key` holds; other words are refused.
template <typename Enum, size_t N>
Enum named_choice(const JsonObject& o, const std::string& key, const char* const (&names)[N]) {
  const std::string word = o.choice(key, {std::begin(names), std::end(names)});
  return static_cast<Enum>(std::find(std::begin(names), std::end(names), word) - std::begin(names));
}

core::Activation parse_activation(const std::string& s) {
  if (s == "relu") return core::Activation::kRelu;
  if (s == "gelu") return core::Activation::kGelu;
  return core::Activation::kSwish;
}

Positions parse_positions(const std::string& s) {
  if (s == "sinusoidal-interleaved") return Positions::kSinusoidalInterleaved;
  if (s == "sinusoidal-concat") return Positions::kSinusoidalConcat;
  if (s == "sinusoidal-marian") return Positions::kSinusoidalMarian;
  return Positions::kTable;
}

ModelConfig parse_config(const JsonObject& o) {
  o.expect_keys({"d_model", "n_heads", "encoder_layers", "decoder_layers", "ffn_dim", "activation", "norm",
                 "final_norm", "layer_norm_eps", "positions", "max_positions", "scale_embedding",
                 "shared_embeddings", "tied_output", "output_bias", "src_vocab_size", "tgt_vocab_size"},
                {"decoder_recurrence", "int8_scheme", "attention_rounding"});
  ModelConfig c;
  c.d_model = static_cast<int>(o.integer("d_model", 1, kMaxDim));
  c.n_heads = static_cast<int>(o.integer("n_heads", 1, c.d_model));
  if (c.d_model % c.n_heads != 0) o.fail("n_heads", "d_model must be divisible by n_heads");
  c.encoder_layers = static_cast<int>(o.integer("encoder_layers", 1, 1024));
  c.decoder_layers = static_cast<int>(o.integer("decoder_layers", 1, 1024));
  c.ffn_dim = static_cast<int>(o.integer("ffn_dim", 1, kMaxDim));
  c.activation = parse_activation(o.choice("activation", {"relu", "gelu", "swish"}));
  c.pre_norm = o.choice("norm", {"post", "pre"}) == "pre";
  c.final_norm = o.boolean("final_norm");
  if (o.has("decoder_recurrence")) {
    c.decoder_recurrence = o.choice("decoder_recurrence", {"self-attention", "ssru"}) == "ssru"
                               ? DecoderRecurrence::kSsru
                               : DecoderRecurrence::kSelfAttention;
  }
  if (o.has("int8_scheme")) c.int8_scheme = named_choice<Int8Scheme>(o, "int8_scheme", kInt8SchemeNames);
  if (o.has("attention_rounding"))
    c.attention_rounding = named_choice<AttentionRounding>(o, "attention_rounding", kAttentionRoundingNames);
  c.layer_norm_eps = static_cast<float>(o.number("layer_norm_eps", 1e-12, 1.0));
  c.positions = parse_positions(
      o.choice("positions", {"sinusoidal-interleaved", "sinusoidal-concat", "sinusoidal-marian", "table"}));
  if (c.positions != Positions::kTable && c.d_model % 2 != 0)
    o.fail("positions", "sinusoids need an even d_model");
  c.max_positions = static_cast<int>(o.integer("max_positions", 2, 1 << 20));
  c.scale_embedding = o.boolean("scale_embedding");
  c.shared_embeddings = o.boolean("shared_embeddings");
  c.tied_output = o.boolean("tied_output");
  c.output_bias = o.boolean("output_bias");
  c.src_vocab_size = static_cast<int>(o.integer("src_vocab_size", 2, kMaxVocab));
  c.tgt_vocab_size = static_cast<int>(o.integer("tgt_vocab_size", 2, kMaxVocab));
  if (c.shared_embeddings && c.src_vocab_size != c.tgt_vocab_size) {
    o.fail("shared_embeddings", "shared embeddings need src_vocab_size == tgt_vocab_size");
  }
  return c;
}

SpecialTokens parse_tokens(const JsonObject& o, int tgt_vocab) {
  o.expect_keys({"pad", "unk", "eos", "decoder_start"});
  SpecialTokens t;
  t.pad = static_cast<int32_t>(o.integer("pad", 0, tgt_vocab - 1));
  t.unk = static_cast<int32_t>(o.integer("unk", 0, tgt_vocab - 1));
  t.eos = static_cast<int32_t>(o.integer("eos", 0, tgt_vocab - 1));
  t.decoder_start = static_cast<int32_t>(o.integer("decoder_start", 0, tgt_vocab - 1));
  if (t.eos == t.pad) o.fail("eos", "must differ from pad");
  return t;
}

DecodingDefaults parse_decoding(const JsonObject& o) {
  o.expect_keys(
      {"beam_size", "length_penalty", "max_length_a", "max_length_b", "max_length", "ban_unk", "renormalize"},
      {"alignment_layer", "alignment_head", "repetition_penalty", "no_repeat_ngram_size", "beam_rules"});
  DecodingDefaults d;
  d.beam_size = static_cast<int>(o.integer("beam_size", kBeamSizeRange.lo, kBeamSizeRange.hi));
  d.length_penalty =
      static_cast<float>(o.number("length_penalty", kLengthPenaltyRange.lo, kLengthPenaltyRange.hi));
  d.max_length_a = static_cast<float>(o.number("max_length_a", kMaxLengthARange.lo, kMaxLengthARange.hi));
  d.max_length_b = static_cast<int>(o.integer("max_length_b", kMaxLengthBRange.lo, kMaxLengthBRange.hi));
  d.max_length = static_cast<int>(o.integer("max_length", kMaxLengthRange.lo, kMaxLengthRange.hi));
  d.ban_unk = o.boolean("ban_unk");
  d.renormalize = o.boolean("renormalize");
  if (o.has("alignment_layer"))
    d.alignment_layer =
        static_cast<int>(o.integer("alignment_layer", kAlignmentLayerRange.lo, kAlignmentLayerRange.hi));
  if (o.has("alignment_head"))
    d.alignment_head =
        static_cast<int>(o.integer("alignment_head", kAlignmentHeadRange.lo, kAlignmentHeadRange.hi));
  if (o.has("repetition_penalty"))
    d.repetition_penalty = static_cast<float>(
        o.number("repetition_penalty", kRepetitionPenaltyRange.lo, kRepetitionPenaltyRange.hi));
  if (o.has("no_repeat_ngram_size"))
    d.no_repeat_ngram_size = static_cast<int>(
        o.integer("no_repeat_ngram_size", kNoRepeatNgramSizeRange.lo, kNoRepeatNgramSizeRange.hi));
  if (o.has("beam_rules")) d.beam_rules = named_choice<core::BeamRules>(o, "beam_rules", kBeamRulesNames);
  if (std::floor(static_cast<double>(d.max_length_a) * kShortestSourceTokens + d.max_length_b) <
      static_cast<double>(kMaxLengthRange.lo)) {
    o.fail("max_length_b", "max_length_a * " + std::to_string(kShortestSourceTokens) +
                               " + max_length_b must be at least " + std::to_string(kMaxLengthRange.lo) +
                               " (room for a token and the end of the sentence)");
  }
  return d;
}

TokenizerFiles parse_tokenizer(const JsonObject& o) {
  o.expect_keys({"source_spm", "target_spm", "source_vocab", "target_vocab", "add_eos"});
  TokenizerFiles t;
  t.source_spm = o.string("source_spm");
  t.target_spm = o.string("target_spm");
  t.source_vocab = o.string_or_empty("source_vocab");
  t.target_vocab = o.string_or_empty("target_vocab");
  t.add_eos = o.boolean("add_eos");
  const std::pair<const char*, const std::string*> fields[] = {{"source_spm", &t.source_spm},
                                                               {"target_spm", &t.target_spm},
                                                               {"source_vocab", &t.source_vocab},
                                                               {"target_vocab", &t.target_vocab}};
  for (const auto& [key, name] : fields) {
    if (name->find('/') != std::string::npos || *name == ".." || *name == ".") {
      o.fail(key, "'" + *name + "': tokenizer files must be plain names inside the model directory");
    }
  }
  if (t.source_spm.empty()) o.fail("source_spm", "a SentencePiece model name is required");
  if (t.target_spm.empty()) o.fail("target_spm", "a SentencePiece model name is required");
  return t;
}

std::string parse_language(const JsonObject& top, const std::string& key) {
  if (!top.has(key)) return "";
  const std::string tag = top.string_or_empty(key);
  if (!tag.empty() && !is_language_tag(tag))
    top.fail(key, "expected a language tag such as \"en\" or \"pt-BR\"");
  return tag;
}

}  // namespace

std::pair<std::string, std::string> languages_from_model_name(const std::string& name) {
  std::string base = name;
  while (!base.empty() && base.back() == '/') base.pop_back();
  base = base.substr(base.find_last_of('/') + 1);
  if (base.compare(0, 8, "opus-mt-") == 0) base = base.substr(8);
  const size_t dash = base.find('-');
  if (dash == std::string::npos || base.find('-', dash + 1) != std::string::npos) return {};
  std::string source = base.substr(0, dash), target = base.substr(dash + 1);
  const auto plain = [](const std::string& t) {
    return t.size() <= 3 && is_language_tag(t) ? t : std::string();
  };
  return {plain(source), plain(target)};
}

bool is_language_tag(const std::string& tag) {
  size_t i = 0;
  while (i < tag.size() && std::isalpha(static_cast<unsigned char>(tag[i]))) ++i;
  if (i < 2 || i > 3) return false;
  while (i < tag.size()) {
    if (tag[i] != '-' && tag[i] != '_') return false;
    size_t j = ++i;
    while (j < tag.size() && std::isalnum(static_cast<unsigned char>(tag[j]))) ++j;
    if (j == i || j - i > 8) return false;
    i = j;
  }
  return true;
}

ModelDescription parse_description(const nlohmann::json& meta, const std::string& where) {
  JsonObject top(meta, where, "");
  ModelDescription d;
  d.source_lang = parse_language(top, "source_lang");
  d.target_lang = parse_language(top, "target_lang");
  d.config = parse_config(top.object("config"));
  d.tokens = parse_tokens(top.object("tokens"), d.config.tgt_vocab_size);
  d.decoding = parse_decoding(top.object("decoding"));
  if (d.decoding.alignment_layer >= d.config.decoder_layers) {
    top.object("decoding")
        .fail("alignment_layer",
              "must be below decoder_layers (" + std::to_string(d.config.decoder_layers) + ")");
  }
  if (d.decoding.alignment_head >= d.config.n_heads) {
    top.object("decoding")
        .fail("alignment_head", "must be below n_heads (" + std::to_string(d.config.n_heads) + ")");
  }
  d.tokenizer = parse_tokenizer(top.object("tokenizer"));
  return d;
}

const char* decoder_recurrence_name(DecoderRecurrence r) {
  return r == DecoderRecurrence::kSsru ? "ssru" : "self-attention";
}

const char* int8_scheme_name(Int8Scheme s) { return kInt8SchemeNames[static_cast<int>(s)]; }

const char* attention_rounding_name(AttentionRounding r) {
  return kAttentionRoundingNames[static_cast<int>(r)];
}

const char* positions_name(Positions p) {
  switch (p) {
    case Positions::kSinusoidalInterleaved:
      return "sinusoidal-interleaved";
    case Positions::kSinusoidalConcat:
      return "sinusoidal-concat";
    case Positions::kSinusoidalMarian:
      return "sinusoidal-marian";
    case Positions::kTable:
      return "table";
  }
  return "?";
}

const char* activation_name(core::Activation a) {
  switch (a) {
    case core::Activation::kRelu:
      return "relu";
    case core::Activation::kGelu:
      return "gelu";
    case core::Activation::kSwish:
      return "swish";
  }
  return "?";
}

namespace {

// The double that prints as the shortest decimal reading back as `f` (1e-05f, not 9.999999747378752e-06):
// model.json and `nmt info` show a float at its own precision.
double shortest_double(float f) {
  char text[32];
  for (int digits = 1; digits < 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(text, nullptr) == f) return std::strtod(text, nullptr);
  }
  return f;
}

}  // namespace

nlohmann::json description_to_json(const ModelDescription& d) {
  const ModelConfig& c = d.config;
  nlohmann::json j;
  if (!d.source_lang.empty()) j["source_lang"] = d.source_lang;
  if (!d.target_lang.empty()) j["target_lang"] = d.target_lang;
  j["config"] = {{"d_model", c.d_model},
                 {"n_heads", c.n_heads},
                 {"encoder_layers", c.encoder_layers},
                 {"decoder_layers", c.decoder_layers},
                 {"ffn_dim", c.ffn_dim},
                 {"activation", activation_name(c.activation)},
                 {"norm", c.pre_norm ? "pre" : "post"},
                 {"final_norm", c.final_norm},
                 {"layer_norm_eps", shortest_double(c.layer_norm_eps)},
                 {"positions", positions_name(c.positions)},
                 {"max_positions", c.max_positions},
                 {"scale_embedding", c.scale_embedding},
                 {"shared_embeddings", c.shared_embeddings},
                 {"tied_output", c.tied_output},
                 {"output_bias", c.output_bias},
                 {"src_vocab_size", c.src_vocab_size},
                 {"tgt_vocab_size", c.tgt_vocab_size}};
  // Written only when not the default, so self-attention models' model.json stays as it was.
  if (c.decoder_recurrence != DecoderRecurrence::kSelfAttention)
    j["config"]["decoder_recurrence"] = decoder_recurrence_name(c.decoder_recurrence);
  if (c.int8_scheme != Int8Scheme::kNmt) j["config"]["int8_scheme"] = int8_scheme_name(c.int8_scheme);
  if (c.attention_rounding != AttentionRounding::kNmt)
    j["config"]["attention_rounding"] = attention_rounding_name(c.attention_rounding);
  j["tokens"] = {{"pad", d.tokens.pad},
                 {"unk", d.tokens.unk},
                 {"eos", d.tokens.eos},
                 {"decoder_start", d.tokens.decoder_start}};
  j["decoding"] = {{"beam_size", d.decoding.beam_size},
                   {"length_penalty", shortest_double(d.decoding.length_penalty)},
                   {"max_length_a", shortest_double(d.decoding.max_length_a)},
                   {"max_length_b", d.decoding.max_length_b},
                   {"max_length", d.decoding.max_length},
                   {"ban_unk", d.decoding.ban_unk},
                   {"renormalize", d.decoding.renormalize}};
  if (d.decoding.alignment_layer >= 0) j["decoding"]["alignment_layer"] = d.decoding.alignment_layer;
  if (d.decoding.alignment_head >= 0) j["decoding"]["alignment_head"] = d.decoding.alignment_head;
  if (d.decoding.repetition_penalty != 1.0f)
    j["decoding"]["repetition_penalty"] = d.decoding.repetition_penalty;
  if (d.decoding.no_repeat_ngram_size > 0)
    j["decoding"]["no_repeat_ngram_size"] = d.decoding.no_repeat_ngram_size;
  if (d.decoding.beam_rules != core::BeamRules::kHuggingFace)
    j["decoding"]["beam_rules"] = kBeamRulesNames[static_cast<int>(d.decoding.beam_rules)];
  auto name_or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
  };
  j["tokenizer"] = {{"source_spm", d.tokenizer.source_spm},
                    {"target_spm", d.tokenizer.target_spm},
                    {"source_vocab", name_or_null(d.tokenizer.source_vocab)},
                    {"target_vocab", name_or_null(d.tokenizer.target_vocab)},
                    {"add_eos", d.tokenizer.add_eos}};
  return j;
}

}  // namespace models
