#include "models/convert/hf_marian_config.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "models/convert/convert_common.h"
#include "models/convert/convert_error.h"
#include "models/convert/json_file.h"
#include "models/convert/release_languages.h"
#include "models/decoding_ranges.h"
#include "models/json_fields.h"
#include "models/model_error.h"

namespace models {

namespace fs = std::filesystem;

namespace {

using convert_detail::path_exists;
using nlohmann::json;

using convert_detail::read_json_file;

bool present(const json& j, const std::string& key) {
  return j.is_object() && j.contains(key) && !j[key].is_null();
}

HfConfig parse_hf_config(const json& cfg, const std::string& where) {
  JsonObject o(cfg, where, "");
  if (present(cfg, "model_type") && o.string("model_type") != "marian") {
    o.fail("model_type", "'" + o.string("model_type") + "' is not supported (only 'marian' models convert)");
  }
  if (present(cfg, "static_position_embeddings") && !o.boolean("static_position_embeddings")) {
    o.fail("static_position_embeddings", "false (learned position embeddings) is not supported");
  }
  if (present(cfg, "normalize_embedding") && o.boolean("normalize_embedding")) {
    o.fail("normalize_embedding", "true (a LayerNorm after the embeddings) is not supported");
  }
  HfConfig c;
  c.d_model = static_cast<int>(o.integer("d_model", 2, 1 << 16));
  c.encoder_layers = static_cast<int>(o.integer("encoder_layers", 1, 1024));
  c.decoder_layers = static_cast<int>(o.integer("decoder_layers", 1, 1024));
  const int enc_heads = static_cast<int>(o.integer("encoder_attention_heads", 1, c.d_model));
  const int dec_heads = static_cast<int>(o.integer("decoder_attention_heads", 1, c.d_model));
  if (enc_heads != dec_heads) {
    o.fail("decoder_attention_heads", std::to_string(dec_heads) + " differs from encoder_attention_heads " +
                                          std::to_string(enc_heads) + " (nmt models have one head count)");
  }
  c.heads = enc_heads;
  if (c.d_model % c.heads != 0) o.fail("encoder_attention_heads", "must divide d_model");
  if (c.d_model % 2 != 0) o.fail("d_model", "must be even (sinusoidal positions)");
  const int enc_ffn = static_cast<int>(o.integer("encoder_ffn_dim", 1, 1 << 20));
  const int dec_ffn = static_cast<int>(o.integer("decoder_ffn_dim", 1, 1 << 20));
  if (enc_ffn != dec_ffn) {
    o.fail("decoder_ffn_dim", std::to_string(dec_ffn) + " differs from encoder_ffn_dim " +
                                  std::to_string(enc_ffn) + " (nmt models have one FFN size)");
  }
  c.ffn_dim = enc_ffn;
  const std::string act = present(cfg, "activation_function") ? o.string("activation_function") : "gelu";
  if (act == "swish" || act == "silu") {
    c.activation = core::Activation::kSwish;
  } else if (act == "gelu") {
    c.activation = core::Activation::kGelu;
  } else if (act == "relu") {
    c.activation = core::Activation::kRelu;
  } else {
    o.fail("activation_function", "'" + act + "' is not supported (swish, silu, gelu, relu)");
  }
  c.max_positions =
      present(cfg, "max_position_embeddings")
          ? static_cast<int>(o.integer("max_position_embeddings", kMaxLengthRange.lo + 1, 1 << 20))
          : 1024;
  c.scale_embedding = present(cfg, "scale_embedding") ? o.boolean("scale_embedding") : false;
  c.shared =
      present(cfg, "share_encoder_decoder_embeddings") ? o.boolean("share_encoder_decoder_embeddings") : true;
  c.tied = present(cfg, "tie_word_embeddings") ? o.boolean("tie_word_embeddings") : true;
  c.vocab_size = static_cast<int>(o.integer("vocab_size", 2, 1 << 24));
  c.decoder_vocab_size = present(cfg, "decoder_vocab_size")
                             ? static_cast<int>(o.integer("decoder_vocab_size", 2, 1 << 24))
                             : c.vocab_size;
  if (c.shared && c.decoder_vocab_size != c.vocab_size) {
    o.fail("decoder_vocab_size", "differs from vocab_size although share_encoder_decoder_embeddings is true");
  }
  c.pad = static_cast<int>(o.integer("pad_token_id", 0, c.decoder_vocab_size - 1));
  c.eos = static_cast<int>(o.integer("eos_token_id", 0, std::min(c.vocab_size, c.decoder_vocab_size) - 1));
  c.decoder_start = present(cfg, "decoder_start_token_id")
                        ? static_cast<int>(o.integer("decoder_start_token_id", 0, c.decoder_vocab_size - 1))
                        : c.pad;
  if (c.eos == c.pad) o.fail("eos_token_id", "equals pad_token_id");
  return c;
}

// A vocab.json: {"piece": id}, ids unique and below `size`.
PieceIds read_vocab(const std::string& path, int size) {
  const json j = read_json_file(path, "vocabulary");
  if (!j.is_object()) throw ModelError(path + ": expected a JSON object {\"piece\": id}");
  PieceIds out;
  std::set<int64_t> ids;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() >= size) {
      throw ModelError(path + ": piece '" + it.key() + "': id must be an integer in [0, " +
                       std::to_string(size) + ") (the model's vocabulary size)");
    }
    if (!ids.insert(it->get<int64_t>()).second) {
      throw ModelError(path + ": id " + std::to_string(it->get<int64_t>()) + " is used twice");
    }
    out.emplace_back(it.key(), static_cast<int32_t>(it->get<int64_t>()));
  }
  return out;
}

int32_t piece_id(const PieceIds& vocab, const std::string& piece) {
  for (const auto& [p, id] : vocab) {
    if (p == piece) return id;
  }
  return -1;
}

// Generation settings: generation_config.json wins over config.json, key by key.
struct Generation {
  const json& gen;
  const json& cfg;
  std::string gen_where, cfg_where;

  bool has(const std::string& key) const { return present(gen, key) || present(cfg, key); }
  JsonObject object_for(const std::string& key) const {
    return present(gen, key) ? JsonObject(gen, gen_where, "") : JsonObject(cfg, cfg_where, "");
  }
  const json& value(const std::string& key) const { return present(gen, key) ? gen[key] : cfg[key]; }
};

DecodingDefaults parse_decoding(const Generation& g, const HfConfig& c, int32_t unk, bool* ban_unk,
                                std::vector<std::string>& warnings) {
  DecodingDefaults d;
  d.beam_size =
      g.has("num_beams")
          ? static_cast<int>(
                g.object_for("num_beams").integer("num_beams", kBeamSizeRange.lo, kBeamSizeRange.hi))
          : 1;
  d.length_penalty =
      g.has("length_penalty")
          ? static_cast<float>(g.object_for("length_penalty")
                                   .number("length_penalty", kLengthPenaltyRange.lo, kLengthPenaltyRange.hi))
          : 1.0f;
  int max_length = c.max_positions;
  if (g.has("max_length")) {
    max_length = static_cast<int>(
        g.object_for("max_length").integer("max_length", kMaxLengthRange.lo + 1, kMaxLengthRange.hi + 1));
  } else {
    warnings.push_back("no max_length in the generation settings: using max_position_embeddings (" +
                       std::to_string(c.max_positions) + ") instead of Hugging Face's default of 20");
  }
  // Hugging Face's max_length counts the decoder start token; ours counts generated tokens incl. EOS.
  d.max_length = max_length - 1;
  d.max_length_a = 0.0f;
  d.max_length_b = max_length - 1;
  d.renormalize =
      g.has("renormalize_logits") ? g.object_for("renormalize_logits").boolean("renormalize_logits") : false;
  *ban_unk = false;
  if (g.has("bad_words_ids")) {
    const json& bad = g.value("bad_words_ids");
    if (!bad.is_array()) {
      g.object_for("bad_words_ids").fail("bad_words_ids", "expected a list of lists of token ids");
    }
    for (const json& seq : bad) {
      if (!seq.is_array())
        g.object_for("bad_words_ids").fail("bad_words_ids", "expected a list of lists of token ids");
      if (seq.size() == 1 && seq[0].is_number_integer()) {
        const int64_t id = seq[0].get<int64_t>();
        if (id == c.pad || id == c.decoder_start) continue;  // never generated anyway
        if (id == unk) {
          *ban_unk = true;
          continue;
        }
      }
      warnings.push_back("bad_words_ids entry " + seq.dump() +
                         " cannot be expressed (only pad and <unk> can be banned): ignored");
    }
  }
  if (g.has("forced_eos_token_id") && g.value("forced_eos_token_id") != json(c.eos)) {
    warnings.push_back("forced_eos_token_id " + g.value("forced_eos_token_id").dump() +
                       " is not the EOS id: nmt forces EOS itself on the last step");
  }
  auto unsupported = [&](const std::string& key, const json& neutral) {
    if (g.has(key) && g.value(key) != neutral) {
      warnings.push_back(key + " " + g.value(key).dump() + " is not supported by nmt's search: ignored");
    }
  };
  unsupported("do_sample", false);
  unsupported("early_stopping", false);
  unsupported("no_repeat_ngram_size", 0);
  unsupported("encoder_no_repeat_ngram_size", 0);
  unsupported("repetition_penalty", 1.0);
  unsupported("num_beam_groups", 1);
  unsupported("diversity_penalty", 0.0);
  unsupported("min_length", 0);
  unsupported("min_new_tokens", nullptr);
  unsupported("forced_bos_token_id", nullptr);
  unsupported("suppress_tokens", nullptr);
  unsupported("begin_suppress_tokens", nullptr);
  unsupported("exponential_decay_length_penalty", nullptr);
  return d;
}

void check_config_present(const std::string& src, const std::string& config_path) {
  std::error_code ec;
  if (!fs::is_directory(src, ec)) throw ModelError(src + ": not a directory");
  if (path_exists(config_path)) return;
  bool npz = false;
  for (const auto& e : fs::directory_iterator(src, ec)) npz = npz || e.path().extension() == ".npz";
  if (npz) {
    throw ConvertModelError({config_path + ": missing (an .npz is there: for a native Marian release use ",
                             "convert_marian_npz", ")"});
  }
  throw ModelError(config_path + ": missing");
}

// The weights: model.safetensors when there is one, else pytorch_model.bin.
std::string check_model_files(const std::string& src) {
  for (const char* f : {"source.spm", "target.spm"}) {
    if (!path_exists(src + "/" + f)) throw ModelError(src + "/" + f + ": missing (SentencePiece model)");
  }
  for (const char* f : {"model.safetensors", "pytorch_model.bin"}) {
    if (path_exists(src + "/" + f)) return src + "/" + f;
  }
  throw ModelError(src + "/model.safetensors: missing (and no pytorch_model.bin either)");
}

// Reads vocab.json (and target_vocab.json when not shared) into `source`; returns the <unk> id, which both
// must agree on, as they must on </s> with config.json.
int32_t read_vocabularies(const std::string& src, HfSource& source) {
  const HfConfig& c = source.config;
  const std::string& vocab_path = source.vocab_path;
  source.source_vocab = read_vocab(vocab_path, c.vocab_size);
  const PieceIds& src_vocab = source.source_vocab;
  PieceIds& tgt_vocab = source.target_vocab;
  std::string tgt_vocab_path = vocab_path;
  if (!c.shared) {
    tgt_vocab_path = src + "/target_vocab.json";
    tgt_vocab = read_vocab(tgt_vocab_path, c.decoder_vocab_size);
  }
  const auto& target_vocab = c.shared ? src_vocab : tgt_vocab;
  const int32_t unk = piece_id(src_vocab, "<unk>");
  if (unk < 0) throw ModelError(vocab_path + ": has no '<unk>' piece");
  if (!c.shared && piece_id(tgt_vocab, "<unk>") >= 0 && piece_id(tgt_vocab, "<unk>") != unk) {
    throw ModelError(tgt_vocab_path + ": '<unk>' has id " + std::to_string(piece_id(tgt_vocab, "<unk>")) +
                     ", the source vocabulary " + std::to_string(unk) + " (nmt models have one unk id)");
  }
  if (unk >= c.decoder_vocab_size)
    throw ModelError(vocab_path + ": '<unk>' id is outside the target vocabulary");
  for (const auto* v : {&src_vocab, &target_vocab}) {
    const int32_t eos_piece = piece_id(*v, "</s>");
    if (eos_piece >= 0 && eos_piece != c.eos) {
      throw ModelError((v == &src_vocab ? vocab_path : tgt_vocab_path) + ": '</s>' has id " +
                       std::to_string(eos_piece) + " but config.json's eos_token_id is " +
                       std::to_string(c.eos));
    }
  }
  return unk;
}

// Marian's network as the Hugging Face port has it: concatenated sinusoids, LayerNorm eps 1e-5.
ModelConfig network_config(const HfConfig& c) {
  ModelConfig mc = convert_detail::marian_network(c);
  mc.layer_norm_eps = 1e-5f;
  mc.positions = Positions::kSinusoidalConcat;
  mc.max_positions = c.max_positions;
  mc.scale_embedding = c.scale_embedding;
  mc.shared_embeddings = c.shared;
  mc.tied_output = c.tied;
  mc.src_vocab_size = c.vocab_size;
  mc.tgt_vocab_size = c.decoder_vocab_size;
  return mc;
}

}  // namespace

HfSource read_hf_source(const std::string& src, const ConvertOptions& options) {
  HfSource source;
  source.config_path = src + "/config.json";
  source.vocab_path = src + "/vocab.json";
  check_config_present(src, source.config_path);
  const json cfg = read_json_file(source.config_path, "model configuration");
  source.config = parse_hf_config(cfg, source.config_path);
  const HfConfig& c = source.config;
  const std::string gen_path = src + "/generation_config.json";
  const json gen =
      path_exists(gen_path) ? read_json_file(gen_path, "generation configuration") : json::object();
  if (!gen.is_object()) throw ModelError(gen_path + ": expected a JSON object");
  source.weights_path = check_model_files(src);
  const int32_t unk = read_vocabularies(src, source);

  ModelDescription& d = source.description;
  std::tie(d.source_lang, d.target_lang) =
      languages_from_model_name(cfg.contains("_name_or_path") && cfg["_name_or_path"].is_string()
                                    ? cfg["_name_or_path"].get<std::string>()
                                    : std::filesystem::absolute(src).string());
  apply_languages(d, languages_from_tokenizer_config(src + "/tokenizer_config.json"), options);
  d.config = network_config(c);
  d.tokens.pad = c.pad;
  d.tokens.eos = c.eos;
  d.tokens.unk = unk;
  d.tokens.decoder_start = c.decoder_start;
  bool ban_unk = false;
  d.decoding =
      parse_decoding(Generation{gen, cfg, gen_path, source.config_path}, c, unk, &ban_unk, source.warnings);
  d.decoding.ban_unk = ban_unk;
  d.tokenizer.source_spm = "source.spm";
  d.tokenizer.target_spm = "target.spm";
  d.tokenizer.source_vocab = c.shared ? "vocab.json" : "source_vocab.json";
  d.tokenizer.target_vocab = c.shared ? "vocab.json" : "target_vocab.json";
  d.tokenizer.add_eos = true;
  return source;
}

}  // namespace models
