#include "models/convert/convert_marian_npz.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "models/convert/marian_yaml.h"
#include "models/convert/npz.h"
#include "models/model_error.h"

namespace models {

namespace fs = std::filesystem;

namespace {

using convert_detail::file_exists;
using convert_detail::read_text_file;

std::string resolve(const std::string& dir, const std::string& path) {
  return fs::path(path).is_absolute() ? path : dir + "/" + path;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string strip_dropout(const std::string& ops) {
  std::string out;
  for (char c : ops) {
    if (c != 'd') out += c;
  }
  return out;
}

// The architecture, from special:model.yml.
struct MarianConfig {
  int d_model = 0, heads = 0, encoder_layers = 0, decoder_layers = 0, ffn_dim = 0;
  core::Activation activation = core::Activation::kSwish;
  bool tied_all = false, tied_src = false, tied = false, omit_bias = false;
  std::vector<int64_t> dim_vocabs;
};

MarianConfig parse_model_yml(const FlatYaml& y) {
  auto refuse = [&](const std::string& key, const std::string& problem) -> void {
    throw ModelError(y.where() + ": " + key + ": " + problem);
  };
  MarianConfig c;
  const std::string type = y.string("type", "amun");
  if (type != "transformer")
    refuse("type", "'" + type + "' is not supported (only 'transformer' models convert)");
  c.d_model = static_cast<int>(y.integer("dim-emb", 512));
  c.heads = static_cast<int>(y.integer("transformer-heads", 8));
  c.encoder_layers = static_cast<int>(y.integer("enc-depth", 1));
  c.decoder_layers = static_cast<int>(y.integer("dec-depth", 1));
  c.ffn_dim = static_cast<int>(y.integer("transformer-dim-ffn", 2048));
  if (c.d_model < 2 || c.d_model % 2 != 0 || c.d_model > (1 << 16))
    refuse("dim-emb", "must be even, 2..65536");
  if (c.heads < 1 || c.d_model % c.heads != 0) refuse("transformer-heads", "must divide dim-emb");
  if (c.encoder_layers < 1 || c.encoder_layers > 1024) refuse("enc-depth", "must be 1..1024");
  if (c.decoder_layers < 1 || c.decoder_layers > 1024) refuse("dec-depth", "must be 1..1024");
  if (c.ffn_dim < 1 || c.ffn_dim > (1 << 20)) refuse("transformer-dim-ffn", "must be 1..2^20");
  const int64_t dec_ffn = y.integer("transformer-decoder-dim-ffn", 0);
  if (dec_ffn != 0 && dec_ffn != c.ffn_dim) {
    refuse("transformer-decoder-dim-ffn", std::to_string(dec_ffn) + " differs from transformer-dim-ffn " +
                                              std::to_string(c.ffn_dim) + " (nmt models have one FFN size)");
  }
  if (y.integer("transformer-ffn-depth", 2) != 2)
    refuse("transformer-ffn-depth", "only 2 (one hidden layer) is supported");
  const int64_t dec_depth = y.integer("transformer-decoder-ffn-depth", 0);
  if (dec_depth != 0 && dec_depth != 2)
    refuse("transformer-decoder-ffn-depth", "only 2 (or 0: same) is supported");
  const std::string act = y.string("transformer-ffn-activation", "swish");
  if (act == "swish") {
    c.activation = core::Activation::kSwish;
  } else if (act == "relu") {
    c.activation = core::Activation::kRelu;
  } else {
    refuse("transformer-ffn-activation",
           "'" + act + "' is not supported (swish, relu; Marian's gelu is the sigmoid approximation)");
  }
  const std::string pre = y.string("transformer-preprocess", "");
  if (!strip_dropout(pre).empty())
    refuse("transformer-preprocess", "'" + pre + "' is not supported (pre-norm models)");
  const std::string post = y.string("transformer-postprocess", "dan");
  if (strip_dropout(post) != "an") {
    refuse("transformer-postprocess", "'" + post + "' is not supported (only 'dan': add, then LayerNorm)");
  }
  const std::string post_emb = y.string("transformer-postprocess-emb", "d");
  if (!strip_dropout(post_emb).empty()) {
    refuse("transformer-postprocess-emb",
           "'" + post_emb + "' is not supported (a LayerNorm after the embeddings)");
  }
  const std::string post_top = y.string("transformer-postprocess-top", "");
  if (!strip_dropout(post_top).empty()) {
    refuse("transformer-postprocess-top", "'" + post_top + "' is not supported (a final LayerNorm)");
  }
  if (y.boolean("transformer-train-position-embeddings", false)) {
    refuse("transformer-train-position-embeddings", "true (learned positions) is not supported");
  }
  const std::string autoreg = y.string("transformer-decoder-autoreg", "self-attention");
  if (autoreg != "self-attention") {
    refuse("transformer-decoder-autoreg", "'" + autoreg + "' is not supported (only self-attention)");
  }
  if (!y.list("transformer-tied-layers").empty())
    refuse("transformer-tied-layers", "tied layers are not supported");
  if (y.boolean("transformer-no-projection", false))
    refuse("transformer-no-projection", "true is not supported");
  if (y.boolean("right-left", false)) refuse("right-left", "true (right-to-left decoding) is not supported");
  if (y.boolean("ulr", false)) refuse("ulr", "true (universal lexical representation) is not supported");
  c.tied_all = y.boolean("tied-embeddings-all", false);
  c.tied_src = y.boolean("tied-embeddings-src", false);
  c.tied = y.boolean("tied-embeddings", false);
  c.omit_bias = y.boolean("output-omit-bias", false);
  for (const std::string& v : y.list("dim-vocabs")) {
    try {
      c.dim_vocabs.push_back(std::stoll(v));
    } catch (const std::exception&) {
      refuse("dim-vocabs", "expected integers, got '" + v + "'");
    }
  }
  return c;
}

// The arrays of one .npz, taken by name: shape-checked, marked as used.
class NpzTensors {
 public:
  explicit NpzTensors(const std::string& path) : file_(path) {}

  bool has(const std::string& name) const { return file_.has(name); }
  [[noreturn]] void fail(const std::string& problem) const {
    throw ModelError(file_.path() + ": " + problem);
  }

  NpyArray take_array(const std::string& name) {
    if (!file_.has(name)) fail("missing array '" + name + "'");
    used_.insert(name);
    return file_.read(name);
  }

  // A float array; `shape` must match exactly, except that a vector [n] may also be stored as [1, n].
  std::vector<float> take(const std::string& name, const std::vector<int64_t>& shape,
                          std::vector<int64_t>* actual = nullptr) {
    NpyArray a = take_array(name);
    if (a.dtype != NpyDType::kF32 && a.dtype != NpyDType::kF16) {
      fail("array '" + name + "': dtype " + npy_dtype_name(a.dtype) +
           " is not a float type ('<f4' or '<f2')");
    }
    if (a.dtype != NpyDType::kF16) all_f16_ = false;
    if (actual) {
      *actual = a.shape;
    } else {
      const bool vector_ok = shape.size() == 1 && a.shape == std::vector<int64_t>{1, shape[0]};
      if (a.shape != shape && !vector_ok) {
        const std::vector<int64_t> shown = shape.size() == 1 ? std::vector<int64_t>{1, shape[0]} : shape;
        fail("array '" + name + "': expected shape " + shape_to_string(shown) + ", got " +
             shape_to_string(a.shape));
      }
    }
    std::vector<float> v = a.to_f32();
    convert_detail::check_no_nan(v, file_.path(), name);
    return v;
  }

  void check_all_used() const {
    for (const std::string& name : file_.names()) {
      if (!used_.count(name))
        fail("unexpected array '" + name + "' (not part of a Marian transformer we can convert)");
    }
  }

  bool all_f16() const { return all_f16_; }
  const std::string& path() const { return file_.path(); }

 private:
  NpzFile file_;
  std::set<std::string> used_;
  bool all_f16_ = true;
};

// [rows, cols] row-major -> [cols, rows].
std::vector<float> transpose(const std::vector<float>& m, int64_t rows, int64_t cols) {
  std::vector<float> t(m.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      t[static_cast<size_t>(c * rows + r)] = m[static_cast<size_t>(r * cols + c)];
  }
  return t;
}

// A vocabulary: Marian .yml / .json (piece -> id), or a SentencePiece model (its own ids).
struct Vocab {
  std::string path;
  bool spm = false;
  std::vector<std::pair<std::string, int32_t>> entries;  // yml/json only
  int32_t size = 0;                                      // max id + 1
  int32_t eos = -1, unk = -1;
};

Vocab load_vocab(const std::string& path) {
  Vocab v;
  v.path = path;
  if (!file_exists(path)) throw ModelError(path + ": vocabulary file missing");
  if (ends_with(path, ".spm") || ends_with(path, ".model")) {
    sentencepiece::SentencePieceProcessor sp;
    const auto status = sp.Load(path);
    if (!status.ok()) throw ModelError(path + ": not a SentencePiece model: " + status.ToString());
    v.spm = true;
    v.size = sp.GetPieceSize();
    v.unk = sp.unk_id();
    v.eos = sp.PieceToId("</s>");
    if (v.eos == v.unk) throw ModelError(path + ": SentencePiece model has no '</s>' piece");
    return v;
  }
  if (ends_with(path, ".yml") || ends_with(path, ".yaml")) {
    v.entries = parse_vocab_yaml(read_text_file(path), path);
  } else if (ends_with(path, ".json")) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_text_file(path));
    } catch (const nlohmann::json::exception& e) {
      throw ModelError(path + ": not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw ModelError(path + ": expected a JSON object {\"piece\": id}");
    std::set<int64_t> ids;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() >= (1 << 24)) {
        throw ModelError(path + ": piece '" + it.key() + "': id must be an integer in [0, 2^24)");
      }
      if (!ids.insert(it->get<int64_t>()).second) {
        throw ModelError(path + ": id " + std::to_string(it->get<int64_t>()) + " is used twice");
      }
      v.entries.emplace_back(it.key(), static_cast<int32_t>(it->get<int64_t>()));
    }
  } else {
    throw ModelError(path + ": unknown vocabulary format (expected .yml, .json or a SentencePiece .spm)");
  }
  for (const auto& [piece, id] : v.entries) {
    v.size = std::max(v.size, id + 1);
    if (piece == "</s>") v.eos = id;
    if (piece == "<unk>") v.unk = id;
  }
  if (v.eos < 0) throw ModelError(path + ": vocabulary has no '</s>'");
  if (v.unk < 0) throw ModelError(path + ": vocabulary has no '<unk>'");
  return v;
}

void check_spm(const std::string& path) {
  if (!file_exists(path)) throw ModelError(path + ": missing (SentencePiece model)");
  sentencepiece::SentencePieceProcessor sp;
  const auto status = sp.Load(path);
  if (!status.ok()) throw ModelError(path + ": not a SentencePiece model: " + status.ToString());
}

std::string find_npz(const std::string& dir, const FlatYaml* decoder_yml) {
  if (decoder_yml) {
    const auto models = decoder_yml->list("models");
    if (!models.empty() && file_exists(resolve(dir, models[0]))) return resolve(dir, models[0]);
  }
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".npz") found.push_back(e.path().string());
  }
  if (ec) throw ModelError(dir + ": cannot list: " + ec.message());
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    throw ModelError(
        dir + ": no *.npz model file" +
        (file_exists(dir + "/config.json")
             ? std::string(" (config.json is there: for a Hugging Face model use --from hf-marian)")
             : ""));
  }
  if (found.size() > 1) {
    throw core::UsageError(dir + ": several .npz files (" + fs::path(found[0]).filename().string() + ", " +
                           fs::path(found[1]).filename().string() + ", ...): choose one with --npz");
  }
  return found[0];
}

}  // namespace

ConvertReport convert_marian_npz(const std::string& dir, const MarianFiles& given,
                                 const ConvertOptions& options) {
  convert_detail::check_output_dir(options.output_dir, dir, options.force);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ModelError(dir + ": not a directory");
  std::vector<std::string> warnings;

  // decoder.yml: vocabularies, model file, decoding settings.
  const std::string decoder_path = dir + "/decoder.yml";
  std::unique_ptr<FlatYaml> decoder_yml;
  if (file_exists(decoder_path)) {
    decoder_yml = std::make_unique<FlatYaml>(FlatYaml::parse(read_text_file(decoder_path), decoder_path));
  }
  MarianFiles f = given;
  if (f.npz.empty()) f.npz = find_npz(dir, decoder_yml.get());
  const std::vector<std::string> yml_vocabs =
      decoder_yml ? decoder_yml->list("vocabs") : std::vector<std::string>{};
  if (f.source_vocab.empty() && !yml_vocabs.empty()) f.source_vocab = resolve(dir, yml_vocabs[0]);
  if (f.target_vocab.empty() && !yml_vocabs.empty()) f.target_vocab = resolve(dir, yml_vocabs.back());
  if (f.source_vocab.empty() || f.target_vocab.empty()) {
    throw core::UsageError(
        decoder_yml ? decoder_path + ": names no vocabularies: use --vocab or --source-vocab/--target-vocab"
                    : dir +
                          ": no decoder.yml: name the vocabularies with --vocab or "
                          "--source-vocab/--target-vocab");
  }
  if (yml_vocabs.size() > 2) {
    throw ModelError(decoder_path + ": vocabs: " + std::to_string(yml_vocabs.size()) +
                     " vocabularies (multi-source models are not supported)");
  }
  const Vocab src_vocab = load_vocab(f.source_vocab);
  const Vocab tgt_vocab = f.target_vocab == f.source_vocab ? src_vocab : load_vocab(f.target_vocab);
  for (const Vocab* v : {&src_vocab, &tgt_vocab}) {
    const std::string& spm_flag = v == &src_vocab ? given.source_spm : given.target_spm;
    if (v->spm && !spm_flag.empty() && spm_flag != v->path) {
      throw core::UsageError(v->path + " is a SentencePiece vocabulary, so it also segments: drop --" +
                             (v == &src_vocab ? "source" : "target") + "-spm");
    }
  }
  if (f.source_spm.empty()) f.source_spm = src_vocab.spm ? src_vocab.path : dir + "/source.spm";
  if (f.target_spm.empty()) f.target_spm = tgt_vocab.spm ? tgt_vocab.path : dir + "/target.spm";
  check_spm(f.source_spm);
  check_spm(f.target_spm);
  if (src_vocab.eos != tgt_vocab.eos || src_vocab.unk != tgt_vocab.unk) {
    throw ModelError(f.target_vocab + ": '</s>'/'<unk>' ids (" + std::to_string(tgt_vocab.eos) + ", " +
                     std::to_string(tgt_vocab.unk) + ") differ from the source vocabulary's (" +
                     std::to_string(src_vocab.eos) + ", " + std::to_string(src_vocab.unk) +
                     "): nmt models have one of each");
  }

  // The model and its architecture.
  NpzTensors npz(f.npz);
  if (!npz.has("special:model.yml")) {
    npz.fail("no 'special:model.yml' array: cannot tell the architecture (Marian models carry one)");
  }
  std::string model_yml_text;
  {
    const NpyArray a = npz.take_array("special:model.yml");
    if (a.dtype != NpyDType::kI8 && a.dtype != NpyDType::kU8) {
      npz.fail("array 'special:model.yml': expected bytes, got dtype " +
               std::string(npy_dtype_name(a.dtype)));
    }
    model_yml_text = a.data;
  }
  const FlatYaml model_yml = FlatYaml::parse(model_yml_text, f.npz + ": special:model.yml");
  const MarianConfig c = parse_model_yml(model_yml);
  const int64_t dm = c.d_model, ffn = c.ffn_dim;
  const bool shared = c.tied_all || c.tied_src;
  const bool tied_output = c.tied_all || c.tied;
  const std::string src_emb_name = shared ? "Wemb" : "encoder_Wemb";
  const std::string tgt_emb_name = shared ? "Wemb" : "decoder_Wemb";

  std::vector<NamedTensor> out;
  // Embeddings: [V-1, d] without a pad row; we append pad = V-1 as a zero row (also the decoder start).
  auto embedding = [&](const std::string& name, int side) -> int64_t {
    std::vector<int64_t> shape;
    std::vector<float> v = npz.take(name, {}, &shape);
    if (shape.size() != 2 || shape[1] != dm) {
      npz.fail("array '" + name + "': expected shape [vocab, " + std::to_string(dm) + "], got " +
               shape_to_string(shape));
    }
    const int64_t rows = shape[0];
    if (static_cast<size_t>(side) < c.dim_vocabs.size() && c.dim_vocabs[side] != rows) {
      npz.fail("array '" + name + "' has " + std::to_string(rows) +
               " rows but special:model.yml dim-vocabs says " + std::to_string(c.dim_vocabs[side]));
    }
    v.resize(static_cast<size_t>((rows + 1) * dm), 0.0f);
    out.push_back(
        {side == 0 ? "encoder.embed_tokens" : "decoder.embed_tokens", {rows + 1, dm}, std::move(v)});
    return rows + 1;
  };
  const int64_t vs = embedding(src_emb_name, 0);
  const int64_t vt = shared ? vs : embedding(tgt_emb_name, 1);
  if (shared && c.dim_vocabs.size() > 1 && c.dim_vocabs[1] != vs - 1) {
    npz.fail("shared embeddings 'Wemb' need equal dim-vocabs, got " + std::to_string(c.dim_vocabs[0]) +
             " and " + std::to_string(c.dim_vocabs[1]));
  }
  for (const Vocab* v : {&src_vocab, &tgt_vocab}) {
    const int64_t rows = (v == &src_vocab ? vs : vt) - 1;
    if (v->size > rows) {
      throw ModelError(v->path + ": " + std::to_string(v->size) + " ids, but the model's embeddings have " +
                       std::to_string(rows) + " rows");
    }
  }
  if (!tied_output) {
    std::vector<float> w = npz.take("decoder_ff_logit_out_W", {dm, vt - 1});
    w = transpose(w, dm, vt - 1);
    w.resize(static_cast<size_t>(vt * dm), 0.0f);
    out.push_back({"output.weight", {vt, dm}, std::move(w)});
  }
  {
    std::vector<float> b = c.omit_bias ? std::vector<float>(static_cast<size_t>(vt - 1), 0.0f)
                                       : npz.take("decoder_ff_logit_out_b", {vt - 1});
    b.push_back(kMarianPadLogit);
    out.push_back({"output.bias", {vt}, std::move(b)});
  }
  auto linear = [&](const std::string& ours, const std::string& weight, const std::string& bias, int64_t in,
                    int64_t out_dim) {
    const std::vector<float> w = npz.take(weight, {in, out_dim});  // Marian: [in, out]
    out.push_back({ours + ".weight", {out_dim, in}, transpose(w, in, out_dim)});
    out.push_back({ours + ".bias", {out_dim}, npz.take(bias, {out_dim})});
  };
  auto attention = [&](const std::string& ours, const std::string& theirs) {
    for (const auto& [p, m] : {std::pair<const char*, const char*>{"q_proj", "q"},
                               {"k_proj", "k"},
                               {"v_proj", "v"},
                               {"out_proj", "o"}}) {
      linear(ours + "." + p, theirs + "_W" + m, theirs + "_b" + m, dm, dm);
    }
  };
  auto norm = [&](const std::string& ours, const std::string& theirs) {
    out.push_back({ours + ".weight", {dm}, npz.take(theirs + "_scale", {dm})});
    out.push_back({ours + ".bias", {dm}, npz.take(theirs + "_bias", {dm})});
  };
  auto feed_forward = [&](const std::string& ours, const std::string& theirs) {
    linear(ours + ".fc1", theirs + "_W1", theirs + "_b1", dm, ffn);
    linear(ours + ".fc2", theirs + "_W2", theirs + "_b2", ffn, dm);
  };
  for (int n = 1; n <= c.encoder_layers; ++n) {
    const std::string ours = "encoder.layers." + std::to_string(n - 1),
                      theirs = "encoder_l" + std::to_string(n);
    attention(ours + ".self_attn", theirs + "_self");
    norm(ours + ".self_attn_norm", theirs + "_self_Wo_ln");
    feed_forward(ours, theirs + "_ffn");
    norm(ours + ".ffn_norm", theirs + "_ffn_ffn_ln");
  }
  for (int n = 1; n <= c.decoder_layers; ++n) {
    const std::string ours = "decoder.layers." + std::to_string(n - 1),
                      theirs = "decoder_l" + std::to_string(n);
    attention(ours + ".self_attn", theirs + "_self");
    norm(ours + ".self_attn_norm", theirs + "_self_Wo_ln");
    attention(ours + ".cross_attn", theirs + "_context");
    norm(ours + ".cross_attn_norm", theirs + "_context_Wo_ln");
    feed_forward(ours, theirs + "_ffn");
    norm(ours + ".ffn_norm", theirs + "_ffn_ffn_ln");
  }
  npz.check_all_used();

  // Decoding settings (decoder.yml; Marian's defaults otherwise).
  static const FlatYaml kEmpty = FlatYaml::parse("", "decoder.yml");
  const FlatYaml& dy = decoder_yml ? *decoder_yml : kEmpty;
  const int max_input = static_cast<int>(dy.integer("max-length", 1000));
  if (max_input < 2 || max_input > (1 << 20))
    throw ModelError(decoder_path + ": max-length: must be 2..2^20");
  double normalize = 1.0;
  if (dy.has("normalize")) {
    const std::string s = dy.string("normalize", "");
    normalize = s == "true" ? 1.0 : s == "false" ? 0.0 : dy.number("normalize", 1.0);
  }
  if (normalize < -10 || normalize > 10) throw ModelError(decoder_path + ": normalize: must be in [-10, 10]");
  const int64_t beam = dy.integer("beam-size", 12);
  if (beam < 1 || beam > 128) throw ModelError(decoder_path + ": beam-size: must be 1..128");
  const double factor = dy.number("max-length-factor", 3.0);
  if (factor <= 0 || factor > 100)
    throw ModelError(decoder_path + ": max-length-factor: must be in (0, 100]");
  if (dy.number("word-penalty", 0.0) != 0.0) {
    warnings.push_back("decoder.yml word-penalty " + dy.string("word-penalty", "") +
                       " is not supported by nmt's scoring: ignored");
  }
  for (const char* key : {"shortlist", "output-sampling", "force-decode"}) {
    if (dy.has(key) && dy.string(key, "x") != "" && dy.string(key, "x") != "false") {
      warnings.push_back(std::string("decoder.yml ") + key + " is not supported: ignored");
    }
  }

  ModelDescription d;
  ModelConfig& mc = d.config;
  mc.d_model = c.d_model;
  mc.n_heads = c.heads;
  mc.encoder_layers = c.encoder_layers;
  mc.decoder_layers = c.decoder_layers;
  mc.ffn_dim = c.ffn_dim;
  mc.activation = c.activation;
  mc.pre_norm = false;
  mc.final_norm = false;
  mc.layer_norm_eps = 1e-6f;
  mc.positions = Positions::kSinusoidalMarian;
  mc.max_positions = max_input;
  mc.scale_embedding = true;
  mc.shared_embeddings = shared;
  mc.tied_output = tied_output;
  mc.output_bias = true;
  mc.src_vocab_size = static_cast<int>(vs);
  mc.tgt_vocab_size = static_cast<int>(vt);
  d.tokens.pad = static_cast<int32_t>(vt - 1);
  d.tokens.decoder_start = d.tokens.pad;
  d.tokens.eos = tgt_vocab.eos;
  d.tokens.unk = tgt_vocab.unk;
  d.decoding.beam_size = static_cast<int>(beam);
  d.decoding.length_penalty = static_cast<float>(normalize);
  d.decoding.max_length_a = static_cast<float>(factor);
  d.decoding.max_length_b = 0;
  d.decoding.max_length = max_input;
  d.decoding.ban_unk = !dy.boolean("allow-unk", false);
  d.decoding.renormalize = false;
  d.tokenizer.source_spm = "source.spm";
  d.tokenizer.target_spm = "target.spm";
  d.tokenizer.add_eos = true;

  convert_detail::OutputFiles files;
  files.copies = {{f.source_spm, "source.spm"}, {f.target_spm, "target.spm"}};
  auto vocab_contents = [&](const Vocab& v, int64_t size) {
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

  parse_description(description_to_json(d), f.npz + " (converted)");
  const DType dtype = convert_detail::choose_dtype(options.dtype, npz.all_f16());
  convert_detail::write_model(options, d, out, dtype, files);
  return convert_detail::make_report(d, out, dtype, std::move(warnings));
}

}  // namespace models
