#include "models/convert/convert_marian_npz.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/ends_with.h"
#include "models/convert/marian_npz_tensors.h"
#include "models/convert/marian_release.h"
#include "models/convert/marian_shortlist.h"
#include "models/convert/release_languages.h"
#include "models/decoding_ranges.h"
#include "models/model_error.h"

namespace models {

namespace fs = std::filesystem;

namespace {

struct MarianDecoding {
  DecodingDefaults defaults;
  int max_input = 0;  // decoder.yml max-length: also the position table's size
  std::vector<std::string> warnings;
};

// decoder.yml's search settings (Marian's defaults where absent).
MarianDecoding read_decoding(const MarianRelease& release) {
  static const FlatYaml kEmpty = FlatYaml::parse("", "decoder.yml");
  const FlatYaml& dy = release.decoder_yml ? *release.decoder_yml : kEmpty;
  const std::string& decoder_path = release.decoder_path;
  MarianDecoding out;
  const int max_input = static_cast<int>(dy.integer("max-length", 1000));
  if (max_input < kMaxLengthRange.lo || max_input > kMaxLengthRange.hi)
    throw ModelError(decoder_path + ": max-length: must be " + range_text(kMaxLengthRange));
  double normalize = 0.0;  // marian-decoder's default: scores are not divided by length
  if (dy.has("normalize")) {
    const std::string s = dy.string("normalize", "");
    normalize = s == "true" ? 1.0 : s == "false" ? 0.0 : dy.number("normalize", 1.0);
  }
  if (normalize < kLengthPenaltyRange.lo || normalize > kLengthPenaltyRange.hi) {
    throw ModelError(decoder_path + ": normalize: must be in " + range_text(kLengthPenaltyRange));
  }
  const int64_t beam = dy.integer("beam-size", 12);
  if (beam < kBeamSizeRange.lo || beam > kBeamSizeRange.hi)
    throw ModelError(decoder_path + ": beam-size: must be " + range_text(kBeamSizeRange));
  const double factor = dy.number("max-length-factor", 3.0);
  if (factor <= 0 || factor > kMaxLengthARange.hi)
    throw ModelError(decoder_path + ": max-length-factor: must be above 0 and at most " +
                     number_text(kMaxLengthARange.hi));
  if (dy.number("word-penalty", 0.0) != 0.0) {
    out.warnings.push_back("decoder.yml word-penalty " + dy.string("word-penalty", "") +
                           " is not supported by nmt's scoring: ignored");
  }
  for (const char* key : {"shortlist", "output-sampling", "force-decode"}) {
    if (key == std::string("shortlist") && !release.files.shortlist.empty()) continue;  // converted
    if (dy.has(key) && dy.string(key, "x") != "" && dy.string(key, "x") != "false") {
      out.warnings.push_back(std::string("decoder.yml ") + key + " is not supported: ignored");
    }
  }

  out.max_input = max_input;
  DecodingDefaults& d = out.defaults;
  d.beam_size = static_cast<int>(beam);
  d.length_penalty = static_cast<float>(normalize);
  d.max_length_a = static_cast<float>(factor);
  // Marian stops after factor x n tokens with no EOS of its own; nmt counts the EOS it forces at the limit.
  d.max_length_b = 1;
  d.max_length = max_input;
  d.ban_unk = !dy.boolean("allow-unk", false);
  d.renormalize = false;
  d.beam_rules = core::BeamRules::kMarian;  // as marian-decoder searches
  return out;
}

// decoder.yml's gemm-precision (marian-decoder's float32 where absent): which products are int8, and
// whether intgemm's shifted arithmetic computes them (int8shift*).
struct GemmPrecision {
  MarianGemm products = MarianGemm::kFloat32;
  bool shifted = false;
};

GemmPrecision read_gemm_precision(const MarianRelease& release) {
  const std::string p =
      release.decoder_yml ? release.decoder_yml->string("gemm-precision", "float32") : "float32";
  const bool shifted = p.rfind("int8shift", 0) == 0;
  if (p == "float32") return {MarianGemm::kFloat32, false};
  if (p == "int8" || p == "int8shift" || p == "int8shiftAll") return {MarianGemm::kInt8, shifted};
  if (p == "int8Alpha" || p == "int8shiftAlpha" || p == "int8shiftAlphaAll")
    return {MarianGemm::kInt8Alphas, shifted};
  throw ModelError(release.decoder_path + ": gemm-precision: '" + p +
                   "' is not supported (float32, int8, int8shift, int8shiftAll, int8Alpha, int8shiftAlpha or "
                   "int8shiftAlphaAll)");
}

ModelDescription describe(const MarianModel& model, const MarianDecoding& decoding,
                          const MarianVocab& target_vocab) {
  const MarianConfig& c = model.config;
  ModelDescription d;
  d.config = convert_detail::marian_network(c);
  ModelConfig& mc = d.config;
  mc.layer_norm_eps = 1e-6f;
  if (c.ssru) mc.decoder_recurrence = DecoderRecurrence::kSsru;
  mc.positions = Positions::kSinusoidalMarian;
  mc.attention_rounding = AttentionRounding::kMarian;
  mc.max_positions = decoding.max_input;
  mc.scale_embedding = true;
  mc.shared_embeddings = model.shared;
  mc.tied_output = model.tied_output;
  mc.src_vocab_size = static_cast<int>(model.source_vocab_size);
  mc.tgt_vocab_size = static_cast<int>(model.target_vocab_size);
  d.tokens.pad = static_cast<int32_t>(model.target_vocab_size - 1);
  d.tokens.decoder_start = d.tokens.pad;
  d.tokens.eos = target_vocab.eos;
  d.tokens.unk = target_vocab.unk;
  d.decoding = decoding.defaults;
  d.decoding.alignment_layer = c.alignment_layer;
  d.decoding.alignment_head = 0;  // Marian aligns with the first head, the one guided alignment trains
  d.tokenizer.source_spm = "source.spm";
  d.tokenizer.target_spm = "target.spm";
  d.tokenizer.add_eos = true;
  return d;
}

// Step 3: the tokenizer files (vocabularies gain a <pad> entry), weights.bin and model.json. Sets the
// description's vocabulary file names.
ConvertReport write_marian_model(const MarianRelease& release, ModelDescription d, const MarianModel& model,
                                 bool shifted, std::vector<std::string> warnings,
                                 const ConvertOptions& options) {
  const MarianFiles& f = release.files;
  const MarianVocab& src_vocab = release.source_vocab;
  const MarianVocab& tgt_vocab = release.target_vocab;
  const int64_t vs = model.source_vocab_size, vt = model.target_vocab_size;
  convert_detail::OutputFiles files;
  files.copies = {{f.source_spm, "source.spm"}, {f.target_spm, "target.spm"}};
  auto vocab_contents = [&](const MarianVocab& v, int64_t size) {
    auto entries = v.entries;
    bool has_pad = false;
    for (const auto& e : entries) has_pad = has_pad || e.first == "<pad>";
    if (!has_pad) entries.emplace_back("<pad>", static_cast<int32_t>(size - 1));
    try {
      return convert_detail::vocab_json(entries);
    } catch (const nlohmann::json::exception& e) {
      throw ModelError(v.path + ": cannot write the vocabulary: " + e.what());
    }
  };
  std::error_code ec;
  const bool same_vocab = fs::equivalent(f.source_vocab, f.target_vocab, ec) && vs == vt;
  if (!src_vocab.spm) {
    d.tokenizer.source_vocab = same_vocab ? "vocab.json" : "source_vocab.json";
    files.contents.push_back({d.tokenizer.source_vocab, vocab_contents(src_vocab, vs)});
  }
  if (!tgt_vocab.spm) {
    d.tokenizer.target_vocab = same_vocab ? "vocab.json" : "target_vocab.json";
    if (!same_vocab || src_vocab.spm)
      files.contents.push_back({d.tokenizer.target_vocab, vocab_contents(tgt_vocab, vt)});
  }

  if (!f.shortlist.empty()) {
    // marian-decoder keeps the source pieces themselves when both sides read one vocabulary file.
    const Shortlist shortlist =
        read_marian_shortlist(f.shortlist, static_cast<int>(vs), static_cast<int>(vt), same_vocab);
    files.contents.push_back({Shortlist::kFileName, shortlist.serialize()});
  }
  // An intgemm model stays int8 unless another type is asked for; then it is an ordinary float model.
  const DType dtype = model.intgemm && options.dtype == ConvertDType::kKeep
                          ? DType::kI8
                          : convert_detail::choose_dtype(options.dtype, model.all_source_f16);
  std::vector<NamedTensor> kept;
  const std::vector<NamedTensor>* tensors = &model.tensors;
  if (model.intgemm && dtype == DType::kI8) {
    // int8shift and int8shiftAlpha shift only the products with a bias; computing the rest shifted too
    // differs in rounding only.
    d.config.int8_scheme = shifted ? Int8Scheme::kIntgemmShifted : Int8Scheme::kIntgemm;
  } else if (model.intgemm) {
    for (const NamedTensor& t : model.tensors) {
      if (!core::ends_with(t.name, kInputMultiplierSuffix)) kept.push_back(t);
    }
    tensors = &kept;
  }
  parse_description(description_to_json(d), f.npz + " (converted)");
  convert_detail::write_model(options, d, *tensors, dtype, files);
  return convert_detail::make_report(options, d, *tensors, dtype, std::move(warnings));
}

}  // namespace

// Read the release -> map tensors -> write; nothing is written before every check passes.
ConvertReport convert_marian_npz(const std::string& dir, const MarianFiles& given,
                                 const ConvertOptions& options) {
  convert_detail::check_output_dir(options.output_dir, dir, options.force);
  const MarianRelease release = read_marian_release(dir, given);
  const GemmPrecision gemm = read_gemm_precision(release);
  const MarianModel model =
      map_marian_tensors(release.files.npz, release.source_vocab, release.target_vocab, gemm.products);
  MarianDecoding decoding = read_decoding(release);
  ModelDescription d = describe(model, decoding, release.target_vocab);
  std::tie(d.source_lang, d.target_lang) = languages_from_model_name(std::filesystem::absolute(dir).string());
  apply_languages(d, languages_from_release_readme(dir + "/README.md"), options);
  return write_marian_model(release, std::move(d), model, gemm.shifted, std::move(decoding.warnings),
                            options);
}

}  // namespace models
