#include "models/convert/ct2_transformer.h"

#include <cmath>
#include <cstring>
#include <set>

#include "models/checkpoint.h"
#include "models/convert/convert_common.h"
#include "models/model_error.h"

namespace models {

namespace {

// The oldest TransformerSpec revision whose variable names we read (revision 3: num_heads stored).
constexpr uint32_t kMinRevision = 3;
constexpr uint32_t kMaxRevision = 7;
// Output bias of the appended start row: the lowest finite half, so it survives --dtype f16 and its
// probability is exactly 0 (as for native Marian, docs/convert.md).
constexpr float kNoMassBias = -65504.f;
// Largest d_model read (translation models have at most 8192): bounds what a forged shape can make us
// compute, such as the sinusoid table.
constexpr int64_t kMaxModelDim = 1 << 14;

// CTranslate2's Activation enum (python/ctranslate2/specs/common_spec.py).
enum Ct2Activation { kCt2Relu = 0, kCt2GeluTanh = 1, kCt2Swish = 2, kCt2Gelu = 3, kCt2GeluSigmoid = 4 };

// The model's variables taken by name (aliases followed): shape-checked, NaN-checked, marked as used.
class Ct2Tensors {
 public:
  explicit Ct2Tensors(const Ct2ModelBin& bin) : bin_(bin) {}

  bool has(const std::string& name) const { return bin_.has(name); }
  const Ct2Variable& variable(const std::string& name) const {
    const Ct2Variable* v = bin_.find(name);
    if (!v) bin_.fail("missing variable '" + name + "'");
    return *v;
  }

  std::vector<float> take(const std::string& name, const std::vector<int64_t>& shape) {
    const Ct2Variable& v = variable(name);
    if (v.shape != shape) {
      bin_.fail("variable '" + name + "': expected shape " + shape_to_string(shape) + ", got " +
                shape_to_string(v.shape));
    }
    used_.insert(v.name);
    if (const Ct2Variable* s = bin_.find(name + "_scale")) used_.insert(s->name);
    std::vector<float> values = bin_.read_f32(name);
    convert_detail::check_no_nan(values, bin_.path(), name);
    return values;
  }

  // A bias CTranslate2 may leave out (LinearSpec.bias is optional): zeros then.
  std::vector<float> take_bias(const std::string& name, int64_t n) {
    if (!has(name)) return std::vector<float>(static_cast<size_t>(n), 0.f);
    return take(name, {n});
  }

  // A scalar attribute; before revision 5 the encoder's and decoder's lived at the root.
  double attribute(const std::string& name, double fallback) {
    std::string key = name;
    if (!has(key) && bin_.revision() < 5) key = name.substr(name.find('/') + 1);
    const Ct2Variable* v = bin_.find(key);
    if (!v) return fallback;
    used_.insert(v->name);
    return bin_.scalar(key, fallback);
  }

  // An attribute that changes the network in a way we do not implement unless it has `expected`.
  void require(const std::string& name, double expected, const std::string& meaning) {
    const double value = attribute(name, expected);
    if (value != expected) {
      bin_.fail("variable '" + name + "' = " + number(value) + " (" + meaning + ") is not supported");
    }
  }

  void check_all_used() const {
    for (const Ct2Variable& v : bin_.variables()) {
      if (!used_.count(v.name))
        bin_.fail("unexpected variable '" + v.name + "' (not part of a Transformer nmt can convert)");
    }
  }

  [[noreturn]] void fail(const std::string& problem) const { bin_.fail(problem); }
  static std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }

 private:
  const Ct2ModelBin& bin_;
  std::set<std::string> used_;
};

core::Activation activation_of(int id, Ct2Tensors& t) {
  switch (id) {
    case kCt2Relu:
      return core::Activation::kRelu;
    case kCt2Gelu:
      return core::Activation::kGelu;
    case kCt2Swish:
      return core::Activation::kSwish;
    case kCt2GeluTanh:
      t.fail("activation GELUTanh (gelu's tanh approximation) is not supported");
    case kCt2GeluSigmoid:
      t.fail("activation GELUSigmoid (gelu's sigmoid approximation) is not supported");
    default:
      t.fail("activation " + std::to_string(id) + " is not supported (relu, gelu and swish are)");
  }
}

// CTranslate2's own sinusoid (src/layers/common.cc), row p holding its position p + 1: sin half then cos
// half, timescale exp(-k * ln(10000) / (d/2 - 1)), in float as it computes them.
std::vector<float> ct2_sinusoids(int rows, int d) {
  const int half = d / 2;
  const float increment = std::log(10000.f) / static_cast<float>(half - 1);
  std::vector<float> table(static_cast<size_t>(rows) * d);
  for (int p = 0; p < rows; ++p) {
    for (int k = 0; k < half; ++k) {
      const float timescale = std::exp(-increment * static_cast<float>(k));
      const float angle = static_cast<float>(p + 1) * timescale;
      table[static_cast<size_t>(p) * d + k] = std::sin(angle);
      table[static_cast<size_t>(p) * d + half + k] = std::cos(angle);
    }
  }
  return table;
}

class Ct2Mapper {
 public:
  Ct2Mapper(Ct2Tensors& t, Ct2Network& net, bool pad_row)
      : t_(t), net_(net), c_(net.config), pad_row_(pad_row) {}

  void architecture(float layer_norm_epsilon) {
    src_emb_ =
        t_.has("encoder/embeddings_0/weight") ? "encoder/embeddings_0/weight" : "encoder/embeddings/weight";
    if (t_.has("encoder/embeddings_1/weight"))
      t_.fail("several source embeddings (source factors) are not supported");
    const Ct2Variable& emb = t_.variable(src_emb_);
    if (emb.shape.size() != 2) t_.fail("variable '" + src_emb_ + "': expected rank 2");
    d_ = emb.shape[1];
    if (d_ < 2 || d_ > kMaxModelDim || d_ % 2 != 0) {
      t_.fail("variable '" + src_emb_ + "': model size " + std::to_string(d_) +
              " is not an even number from 2 to " + std::to_string(kMaxModelDim));
    }
    net_.weight_dtype = emb.dtype;
    c_.d_model = static_cast<int>(d_);
    c_.n_heads = static_cast<int>(t_.attribute("encoder/num_heads", 8));
    if (t_.attribute("decoder/num_heads", 8) != c_.n_heads) t_.fail("encoder and decoder head counts differ");
    if (c_.n_heads <= 0 || d_ % c_.n_heads != 0)
      t_.fail("num_heads " + std::to_string(c_.n_heads) + " does not divide the model size");
    while (t_.has("encoder/layer_" + std::to_string(c_.encoder_layers) + "/ffn/linear_0/weight"))
      ++c_.encoder_layers;
    while (t_.has("decoder/layer_" + std::to_string(c_.decoder_layers) + "/ffn/linear_0/weight"))
      ++c_.decoder_layers;
    if (c_.encoder_layers == 0 || c_.decoder_layers == 0) t_.fail("no encoder or no decoder layers");
    const Ct2Variable& fc1 = t_.variable("encoder/layer_0/ffn/linear_0/weight");
    if (fc1.shape.size() != 2) t_.fail("variable '" + fc1.name + "': expected rank 2");
    ffn_ = fc1.shape[0];
    c_.ffn_dim = static_cast<int>(ffn_);
    const bool pre = t_.attribute("encoder/pre_norm", 1) != 0;
    if ((t_.attribute("decoder/pre_norm", 1) != 0) != pre)
      t_.fail("encoder and decoder norm placements differ");
    c_.pre_norm = pre;
    const int act = static_cast<int>(t_.attribute("encoder/activation", kCt2Relu));
    if (t_.attribute("decoder/activation", kCt2Relu) != act)
      t_.fail("encoder and decoder activations differ");
    c_.activation = activation_of(act, t_);
    c_.final_norm = t_.has("encoder/layer_norm/gamma");
    if (t_.has("decoder/layer_norm/gamma") != c_.final_norm) t_.fail("only one stack has a final layer norm");
    c_.layer_norm_eps = layer_norm_epsilon;
    t_.attribute("encoder/embeddings_merge", 0);  // one source embedding: nothing to merge
    t_.require("encoder/multi_query_attention", 0, "multi-query attention");
    t_.require("decoder/alibi", 0, "ALiBi attention");
    t_.require("decoder/alibi_use_positive_positions", 0, "ALiBi attention");
    t_.require("decoder/scale_alibi", 0, "ALiBi attention");
    t_.require("decoder/scale_outputs", 1, "scaled outputs");
    net_.zero_start = t_.attribute("decoder/start_from_zero_embedding", 0) != 0;
    const bool scale_src = embedding_scale("encoder"), scale_tgt = embedding_scale("decoder");
    if (scale_src != scale_tgt) t_.fail("only one stack scales its embeddings");
    c_.scale_embedding = scale_src;
    alignment();
  }

  void embeddings() {
    const Ct2Variable* src = &t_.variable(src_emb_);
    const Ct2Variable* tgt = &t_.variable("decoder/embeddings/weight");
    const Ct2Variable* proj = &t_.variable("decoder/projection/weight");
    const int64_t vs = src->shape[0], vt = tgt->shape.empty() ? 0 : tgt->shape[0];
    // Shared: one stored variable (CTranslate2 aliases equal weights).
    c_.shared_embeddings = src == tgt;
    c_.tied_output = proj == tgt;
    net_.extra_row = net_.zero_start || pad_row_;
    const int64_t extra = net_.extra_row ? 1 : 0;
    std::vector<float> e = t_.take(src_emb_, {vs, d_});
    if (c_.shared_embeddings) {
      append_zero_rows(e, extra);
      net_.tensors.push_back({"encoder.embed_tokens", {vs + extra, d_}, std::move(e)});
    } else {
      net_.tensors.push_back({"encoder.embed_tokens", {vs, d_}, std::move(e)});
      std::vector<float> te = t_.take("decoder/embeddings/weight", {vt, d_});
      append_zero_rows(te, extra);
      net_.tensors.push_back({"decoder.embed_tokens", {vt + extra, d_}, std::move(te)});
    }
    if (!c_.tied_output) {
      std::vector<float> w = t_.take("decoder/projection/weight", {vt, d_});
      append_zero_rows(w, extra);
      net_.tensors.push_back({"output.weight", {vt + extra, d_}, std::move(w)});
    }
    c_.output_bias = t_.has("decoder/projection/bias") || net_.extra_row;
    if (c_.output_bias) {
      std::vector<float> b = t_.take_bias("decoder/projection/bias", vt);
      if (net_.extra_row) b.push_back(kNoMassBias);
      net_.tensors.push_back({"output.bias", {vt + extra}, std::move(b)});
    }
    c_.src_vocab_size = static_cast<int>(c_.shared_embeddings ? vs + extra : vs);
    c_.tgt_vocab_size = static_cast<int>(vt + extra);
  }

  void positions() {
    const std::string enc = "encoder/position_encodings/encodings",
                      dec = "decoder/position_encodings/encodings";
    c_.positions = Positions::kTable;
    if (!t_.has(enc) && !t_.has(dec)) {
      c_.max_positions = kCt2SinusoidPositions;
      const std::vector<float> table = ct2_sinusoids(kCt2SinusoidPositions, static_cast<int>(d_));
      net_.tensors.push_back({"encoder.positions", {kCt2SinusoidPositions, d_}, table});
      net_.tensors.push_back({"decoder.positions", {kCt2SinusoidPositions, d_}, table});
      return;
    }
    if (!t_.has(enc) || !t_.has(dec)) t_.fail("only one stack stores its position encodings");
    const int64_t ne = t_.variable(enc).shape.empty() ? 0 : t_.variable(enc).shape[0];
    const int64_t nd = t_.variable(dec).shape.empty() ? 0 : t_.variable(dec).shape[0];
    // Our tables have one length: the shorter one (CTranslate2 refuses positions beyond either).
    const int64_t rows = std::min(ne, nd);
    if (rows <= 0) t_.fail("empty position encodings");
    c_.max_positions = static_cast<int>(rows);
    std::vector<float> et = t_.take(enc, {ne, d_}), dt = t_.take(dec, {nd, d_});
    et.resize(static_cast<size_t>(rows * d_));
    dt.resize(static_cast<size_t>(rows * d_));
    net_.tensors.push_back({"encoder.positions", {rows, d_}, std::move(et)});
    net_.tensors.push_back({"decoder.positions", {rows, d_}, std::move(dt)});
  }

  void layers() {
    for (int i = 0; i < c_.encoder_layers; ++i) {
      const std::string ours = "encoder.layers." + std::to_string(i),
                        theirs = "encoder/layer_" + std::to_string(i);
      self_attention(ours, theirs);
      feed_forward(ours, theirs);
    }
    for (int i = 0; i < c_.decoder_layers; ++i) {
      const std::string ours = "decoder.layers." + std::to_string(i),
                        theirs = "decoder/layer_" + std::to_string(i);
      self_attention(ours, theirs);
      cross_attention(ours, theirs);
      feed_forward(ours, theirs);
    }
    if (c_.final_norm) {
      norm("encoder.final_norm", "encoder/layer_norm");
      norm("decoder.final_norm", "decoder/layer_norm");
    }
  }

 private:
  // The stack's embedding scale: sqrt(d) (true) or 1 (false); any other value is refused.
  bool embedding_scale(const std::string& stack) {
    std::string name = stack + "/scale_embeddings";
    if (!t_.has(name))
      name = stack + (stack == "encoder" ? "/embeddings_0" : "/embeddings") + "/multiply_by_sqrt_depth";
    if (!t_.has(name)) return true;
    const Ct2Variable& v = t_.variable(name);
    const double value = t_.attribute(name, 1);
    if (v.dtype == Ct2DType::kI8) return value != 0;  // a flag
    if (value == 1) return false;
    if (std::fabs(value - std::sqrt(static_cast<double>(d_))) < 1e-4) return true;
    t_.fail("variable '" + name + "' = " + Ct2Tensors::number(value) +
            ": only sqrt(d_model) or 1 is supported");
  }

  void alignment() {
    const int layer = static_cast<int>(t_.attribute("decoder/alignment_layer", -1));
    // Which heads CTranslate2 averages for its alignments (its default: the first) is not carried over:
    // --alignment averages them all (docs/convert.md).
    t_.attribute("decoder/alignment_heads", 1);
    const int n = c_.decoder_layers;
    if (layer < -n || layer >= n)
      t_.fail("alignment_layer " + std::to_string(layer) + " is outside the decoder");
    const int index = layer < 0 ? n + layer : layer;
    net_.alignment_layer = index == n - 1 ? -1 : index;
  }

  void append_zero_rows(std::vector<float>& rows, int64_t n) const {
    rows.resize(rows.size() + static_cast<size_t>(n * d_), 0.f);
  }

  void add(const std::string& ours, std::vector<int64_t> shape, std::vector<float> values) {
    net_.tensors.push_back({ours, std::move(shape), std::move(values)});
  }

  void linear(const std::string& ours, const std::string& theirs, int64_t out, int64_t in) {
    add(ours + ".weight", {out, in}, t_.take(theirs + "/weight", {out, in}));
    add(ours + ".bias", {out}, t_.take_bias(theirs + "/bias", out));
  }

  // A fused projection [parts * d, d] split into `names`, in order.
  void fused(const std::string& ours, const std::vector<const char*>& names, const std::string& theirs) {
    const int64_t parts = static_cast<int64_t>(names.size());
    const std::vector<float> w = t_.take(theirs + "/weight", {parts * d_, d_});
    const std::vector<float> b = t_.take_bias(theirs + "/bias", parts * d_);
    for (int64_t p = 0; p < parts; ++p) {
      add(ours + "." + names[p] + ".weight", {d_, d_},
          std::vector<float>(w.begin() + p * d_ * d_, w.begin() + (p + 1) * d_ * d_));
      add(ours + "." + names[p] + ".bias", {d_},
          std::vector<float>(b.begin() + p * d_, b.begin() + (p + 1) * d_));
    }
  }

  void norm(const std::string& ours, const std::string& theirs) {
    if (!t_.has(theirs + "/beta")) t_.fail("'" + theirs + "' has no beta: RMS norm is not supported");
    t_.require(theirs + "/layer_norm_use_residual", 0, "a residual inside the norm");
    add(ours + ".weight", {d_}, t_.take(theirs + "/gamma", {d_}));
    add(ours + ".bias", {d_}, t_.take(theirs + "/beta", {d_}));
  }

  void check_queries_scale(const std::string& theirs) {
    const double expected = 1.0 / std::sqrt(static_cast<double>(c_.head_dim()));
    const double scale = t_.attribute(theirs + "/queries_scale", expected);
    if (std::fabs(scale - expected) > 1e-6)
      t_.fail("variable '" + theirs + "/queries_scale': only 1/sqrt(head_dim) is supported");
  }

  void self_attention(const std::string& ours, const std::string& theirs) {
    const std::string a = theirs + "/self_attention";
    check_queries_scale(a);
    fused(ours + ".self_attn", {"q_proj", "k_proj", "v_proj"}, a + "/linear_0");
    linear(ours + ".self_attn.out_proj", a + "/linear_1", d_, d_);
    norm(ours + ".self_attn_norm", a + "/layer_norm");
  }

  void cross_attention(const std::string& ours, const std::string& theirs) {
    const std::string a = theirs + "/attention";
    check_queries_scale(a);
    linear(ours + ".cross_attn.q_proj", a + "/linear_0", d_, d_);
    fused(ours + ".cross_attn", {"k_proj", "v_proj"}, a + "/linear_1");
    linear(ours + ".cross_attn.out_proj", a + "/linear_2", d_, d_);
    norm(ours + ".cross_attn_norm", a + "/layer_norm");
  }

  void feed_forward(const std::string& ours, const std::string& theirs) {
    linear(ours + ".fc1", theirs + "/ffn/linear_0", ffn_, d_);
    linear(ours + ".fc2", theirs + "/ffn/linear_1", d_, ffn_);
    norm(ours + ".ffn_norm", theirs + "/ffn/layer_norm");
  }

  Ct2Tensors& t_;
  Ct2Network& net_;
  ModelConfig& c_;
  const bool pad_row_;
  std::string src_emb_;
  int64_t d_ = 0, ffn_ = 0;
};

}  // namespace

Ct2Network map_ct2_transformer(const Ct2ModelBin& bin, float layer_norm_epsilon, bool pad_row) {
  if (bin.spec() != "TransformerSpec") {
    bin.fail("spec '" + bin.spec() +
             "' is not supported: nmt converts translation Transformers (TransformerSpec), not language "
             "models, encoders or speech models");
  }
  if (bin.revision() < kMinRevision || bin.revision() > kMaxRevision) {
    bin.fail("TransformerSpec revision " + std::to_string(bin.revision()) + " is not supported (" +
             std::to_string(kMinRevision) + " to " + std::to_string(kMaxRevision) + " are)");
  }
  Ct2Network net;
  Ct2Tensors tensors(bin);
  Ct2Mapper mapper(tensors, net, pad_row);
  mapper.architecture(layer_norm_epsilon);
  mapper.embeddings();
  mapper.positions();
  mapper.layers();
  tensors.check_all_used();
  return net;
}

}  // namespace models
