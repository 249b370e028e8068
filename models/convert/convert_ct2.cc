#include "models/convert/convert_ct2.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "core/text_lines.h"
#include "models/convert/convert_error.h"
#include "models/convert/ct2_model_bin.h"
#include "models/convert/ct2_transformer.h"
#include "models/convert/json_file.h"
#include "models/model_error.h"

namespace models {

namespace fs = std::filesystem;

namespace {

// CTranslate2's translate_batch defaults: what a model translated through CTranslate2 gets unless the
// caller says otherwise.
constexpr int kCt2BeamSize = 2;
constexpr int kCt2MaxDecodingLength = 256;

struct Ct2Config {
  std::string unk = "<unk>", eos = "</s>", decoder_start = "<s>";
  bool add_source_eos = false;
  float layer_norm_epsilon = 1e-5f;  // CTranslate2's default for a LayerNorm with beta
};

Ct2Config read_config(const std::string& path) {
  const nlohmann::json j = convert_detail::read_json_object(path, "CTranslate2 config");
  Ct2Config c;
  auto token = [&](const char* key, std::string& out) {
    if (!j.contains(key)) return;
    if (!j[key].is_string()) {
      throw ModelError(path + ": " + key + ": " +
                       (j[key].is_null()
                            ? std::string("null (the start token comes from each request's target "
                                          "prefix) is not supported")
                            : std::string("expected a string")));
    }
    out = j[key].get<std::string>();
  };
  token("unk_token", c.unk);
  token("eos_token", c.eos);
  token("decoder_start_token", c.decoder_start);
  auto flag = [&](const char* key) {
    if (!j.contains(key) || j[key].is_null()) return false;
    if (!j[key].is_boolean()) throw ModelError(path + ": " + key + ": expected true or false");
    return j[key].get<bool>();
  };
  if (flag("add_source_bos"))
    throw ModelError(path + ": add_source_bos: true (a BOS before each source) is not supported");
  c.add_source_eos = flag("add_source_eos");
  if (flag("multi_query_attention"))
    throw ModelError(path + ": multi_query_attention: true is not supported");
  if (j.contains("quantization_type") && !j["quantization_type"].is_null())
    throw ModelError(path + ": quantization_type (AWQ weights) is not supported");
  if (j.contains("layer_norm_epsilon") && !j["layer_norm_epsilon"].is_null()) {
    if (!j["layer_norm_epsilon"].is_number())
      throw ModelError(path + ": layer_norm_epsilon: expected a number");
    c.layer_norm_epsilon = j["layer_norm_epsilon"].get<float>();
    if (!(c.layer_norm_epsilon > 0 && c.layer_norm_epsilon < 1))
      throw ModelError(path + ": layer_norm_epsilon: must be above 0 and below 1");
  }
  return c;
}

struct Vocabulary {
  std::string path;
  std::vector<std::string> tokens;
};

// NAME.json (a JSON list of tokens) or NAME.txt (one token a line), as CTranslate2 saves them.
bool read_vocabulary(const std::string& dir, const std::string& name, Vocabulary* out) {
  const std::string json_path = dir + "/" + name + ".json", txt_path = dir + "/" + name + ".txt";
  if (convert_detail::path_exists(json_path)) {
    out->path = json_path;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(convert_detail::read_text_file(json_path, "vocabulary"));
    } catch (const nlohmann::json::exception& e) {
      throw ModelError(json_path + ": not valid JSON: " + e.what());
    }
    if (!j.is_array()) throw ModelError(json_path + ": expected a JSON list of tokens");
    for (const auto& t : j) {
      if (!t.is_string())
        throw ModelError(json_path + ": entry " + std::to_string(out->tokens.size()) + " is not a string");
      out->tokens.push_back(t.get<std::string>());
    }
    return true;
  }
  if (!convert_detail::path_exists(txt_path)) return false;
  out->path = txt_path;
  out->tokens = core::file_lines(convert_detail::read_text_file(txt_path, "vocabulary"));
  return true;
}

std::map<std::string, int32_t> index_of(const Vocabulary& v) {
  std::map<std::string, int32_t> ids;
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    if (!ids.emplace(v.tokens[i], static_cast<int32_t>(i)).second)
      throw ModelError(v.path + ": token '" + v.tokens[i] + "' appears twice");
  }
  return ids;
}

std::string vocab_file(const Vocabulary& v, std::vector<std::string> extra) {
  std::vector<std::pair<std::string, int32_t>> entries;
  for (size_t i = 0; i < v.tokens.size(); ++i) entries.emplace_back(v.tokens[i], static_cast<int32_t>(i));
  for (std::string& e : extra) entries.emplace_back(std::move(e), static_cast<int32_t>(entries.size()));
  try {
    return convert_detail::vocab_json(entries);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(v.path + ": cannot write the vocabulary: " + e.what());
  }
}

void check_size(const Vocabulary& v, int64_t rows, const std::string& what) {
  if (static_cast<int64_t>(v.tokens.size()) != rows) {
    throw ModelError(v.path + ": " + std::to_string(v.tokens.size()) + " tokens, but the " + what + " has " +
                     std::to_string(rows) + " rows");
  }
}

// The SentencePiece models: given, else DIR/source.spm + DIR/target.spm, else DIR/sentencepiece.model.
std::pair<std::string, std::string> find_spm(const std::string& dir, const Ct2Files& files) {
  std::string src = files.source_spm, tgt = files.target_spm;
  for (const auto& [a, b] :
       {std::pair{"source.spm", "target.spm"}, std::pair{"sentencepiece.model", "sentencepiece.model"}}) {
    if (src.empty() && tgt.empty() && convert_detail::path_exists(dir + "/" + a) &&
        convert_detail::path_exists(dir + "/" + b)) {
      src = dir + "/" + a;
      tgt = dir + "/" + b;
    }
  }
  if (src.empty() || tgt.empty()) {
    throw ConvertUsageError(
        {dir +
             ": no SentencePiece model (source.spm and target.spm, or sentencepiece.model); name them with ",
         "source_spm", " and ", "target_spm"});
  }
  return {src, tgt};
}

}  // namespace

bool is_ct2_directory(const std::string& dir) {
  return convert_detail::path_exists(dir + "/model.bin") && convert_detail::path_exists(dir + "/config.json");
}

ConvertReport convert_ct2(const std::string& dir, const Ct2Files& files, const ConvertOptions& options,
                          const Ct2Context& context) {
  convert_detail::check_output_dir(options.output_dir, dir, options.force);
  const Ct2Config config = read_config(dir + "/config.json");
  const Ct2ModelBin bin = Ct2ModelBin::read(dir + "/model.bin");

  Vocabulary src, tgt;
  if (read_vocabulary(dir, "shared_vocabulary", &src)) {
    tgt = src;
  } else if (!read_vocabulary(dir, "source_vocabulary", &src) ||
             !read_vocabulary(dir, "target_vocabulary", &tgt)) {
    throw ModelError(dir + ": no vocabulary (shared_vocabulary.json/.txt, or source_ and target_vocabulary)");
  }
  index_of(src);  // refuses a token listed twice
  const std::map<std::string, int32_t> tgt_ids = index_of(tgt);
  const bool vocab_pad = tgt_ids.count("<blank>") || tgt_ids.count("<pad>");
  // Our pad is never generated: without a pad token, the start token serves unless it is the EOS (which
  // must stay possible); then an appended row with no probability mass does.
  const bool zero_start = bin.scalar("decoder/start_from_zero_embedding", 0) != 0;
  const bool pad_row = !zero_start && !vocab_pad && config.decoder_start == config.eos;
  Ct2Network net = map_ct2_transformer(bin, config.layer_norm_epsilon, pad_row);
  const ModelConfig& mc = net.config;
  const int64_t extra_rows = net.extra_row ? 1 : 0;
  check_size(src, mc.src_vocab_size - (mc.shared_embeddings ? extra_rows : 0), "source embedding");
  check_size(tgt, mc.tgt_vocab_size - extra_rows, "target embedding");
  auto id = [&](const std::string& token, const char* key) {
    auto it = tgt_ids.find(token);
    if (it == tgt_ids.end())
      throw ModelError(dir + "/config.json: " + key + " '" + token + "' is not in " + tgt.path);
    return it->second;
  };

  ModelDescription d;
  d.config = mc;
  d.tokens.eos = id(config.eos, "eos_token");
  d.tokens.unk = id(config.unk, "unk_token");
  std::vector<std::string> extra;
  const int32_t extra_id = static_cast<int32_t>(tgt.tokens.size());
  if (net.extra_row) extra.push_back(tgt_ids.count("<pad>") ? "<ct2-no-mass>" : "<pad>");
  if (net.zero_start) {
    // The appended all-zero row starts the decoder (CTranslate2's start_from_zero_embedding).
    d.tokens.decoder_start = d.tokens.pad = extra_id;
  } else {
    d.tokens.decoder_start = id(config.decoder_start, "decoder_start_token");
    d.tokens.pad = tgt_ids.count("<blank>") ? tgt_ids.at("<blank>")
                   : tgt_ids.count("<pad>") ? tgt_ids.at("<pad>")
                   : net.extra_row          ? extra_id
                                            : d.tokens.decoder_start;
  }
  DecodingDefaults& dec = d.decoding;
  dec.beam_size = context.beam_size > 0 ? context.beam_size : kCt2BeamSize;
  dec.length_penalty = context.beam_size > 0 ? context.length_penalty : 1.0f;
  dec.max_length = std::min(kCt2MaxDecodingLength + 1, mc.max_positions);  // ours counts the EOS, its not
  dec.max_length_a = 0;
  dec.max_length_b = dec.max_length;
  dec.ban_unk = false;
  dec.renormalize = false;
  dec.alignment_layer = net.alignment_layer;
  dec.beam_rules = core::BeamRules::kCTranslate2;
  // Marian models were trained with </s> after each source; CTranslate2 leaves adding it to the caller.
  d.tokenizer.add_eos = net.zero_start || config.add_source_eos;
  d.tokenizer.source_spm = "source.spm";
  d.tokenizer.target_spm = "target.spm";

  convert_detail::OutputFiles out;
  const auto [src_spm, tgt_spm] = find_spm(dir, files);
  out.copies = {{src_spm, "source.spm"}, {tgt_spm, "target.spm"}};
  if (src.tokens == tgt.tokens && mc.shared_embeddings) {
    d.tokenizer.source_vocab = d.tokenizer.target_vocab = "vocab.json";
    out.contents.push_back({"vocab.json", vocab_file(tgt, extra)});
  } else {
    d.tokenizer.source_vocab = "source_vocab.json";
    d.tokenizer.target_vocab = "target_vocab.json";
    out.contents.push_back(
        {"source_vocab.json", vocab_file(src, mc.shared_embeddings ? extra : std::vector<std::string>{})});
    out.contents.push_back({"target_vocab.json", vocab_file(tgt, extra)});
  }

  std::tie(d.source_lang, d.target_lang) =
      languages_from_model_name(fs::absolute(dir).lexically_normal().string());
  apply_languages(d, context.languages, options);
  parse_description(description_to_json(d), dir + "/model.bin (converted)");

  std::vector<std::string> warnings = context.warnings;
  for (const std::string& w : net.warnings) warnings.push_back(w);
  DType dtype = convert_detail::choose_dtype(options.dtype, net.weight_dtype == Ct2DType::kF16);
  if (options.dtype == ConvertDType::kKeep && net.weight_dtype == Ct2DType::kI8) dtype = DType::kI8;
  if (net.weight_dtype == Ct2DType::kI16 && dtype != DType::kI8)
    warnings.push_back("int16 weights are dequantized (nmt has no int16 kernels)");
  convert_detail::write_model(options, d, net.tensors, dtype, out);
  return convert_detail::make_report(options, d, net.tensors, dtype, std::move(warnings));
}

}  // namespace models
