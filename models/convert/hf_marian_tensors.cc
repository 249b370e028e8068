#include "models/convert/hf_marian_tensors.h"

#include <cmath>
#include <cstring>
#include <set>

#include "models/convert/convert_common.h"
#include "models/convert/tensor_source.h"
#include "models/model_error.h"
#include "models/positions.h"

namespace models {

namespace {

// Tensors of one model.safetensors or pytorch_model.bin, taken by name: shape-checked, NaN-checked, marked as
// used.
class HfTensors {
 public:
  explicit HfTensors(const std::string& path) : source_(open_tensor_source(path)), file_(*source_) {}

  bool has(const std::string& name) const { return file_.has(name); }

  std::vector<float> take(const std::string& name, const std::vector<int64_t>& shape) {
    if (!file_.has(name)) fail("missing tensor '" + name + "'");
    const SourceTensor& t = file_.tensor(name);
    if (t.shape != shape) {
      fail("tensor '" + name + "': expected shape " + shape_to_string(shape) + ", got " +
           shape_to_string(t.shape));
    }
    used_.insert(name);
    if (t.dtype != SourceDType::kF16) all_f16_ = false;
    std::vector<float> v = file_.read_f32(name);
    convert_detail::check_no_nan(v, file_.path(), name);
    return v;
  }

  // A tensor that must hold the same values as `primary` (tied weights stored twice).
  void take_duplicate(const std::string& name, const std::string& primary, const std::vector<float>& values,
                      const std::vector<int64_t>& shape) {
    const std::vector<float> v = take(name, shape);
    if (std::memcmp(v.data(), values.data(), v.size() * sizeof(float)) != 0) {
      fail("tensor '" + name + "' should be tied to '" + primary + "' (same weights) but differs from it");
    }
  }

  // Every tensor must have been used: anything else is a model variant we do not know.
  void check_all_used() const {
    for (const auto& t : file_.tensors()) {
      if (!used_.count(t.name))
        fail("unexpected tensor '" + t.name + "' (not part of a MarianMT model we can convert)");
    }
  }

  bool all_f16() const { return all_f16_; }
  const std::string& path() const { return file_.path(); }
  [[noreturn]] void fail(const std::string& problem) const {
    throw ModelError(file_.path() + ": " + problem);
  }

 private:
  std::unique_ptr<TensorSource> source_;
  const TensorSource& file_;
  std::set<std::string> used_;
  bool all_f16_ = true;
};

// Our tensors in checkpoint order, each taken from the weights file by its Hugging Face name.
class HfMapper {
 public:
  HfMapper(HfTensors& hf, const HfConfig& c) : hf_(hf), c_(c), dm_(c.d_model), ffn_(c.ffn_dim) {}

  void embeddings() {
    const int64_t vs = c_.vocab_size, vt = c_.decoder_vocab_size;
    if (c_.shared) {
      std::vector<std::string> names = {"model.shared.weight", "model.encoder.embed_tokens.weight",
                                        "model.decoder.embed_tokens.weight"};
      if (c_.tied) names.push_back("lm_head.weight");
      add_tied("encoder.embed_tokens", names, {vs, dm_});
    } else {
      add("encoder.embed_tokens", "model.encoder.embed_tokens.weight", {vs, dm_});
      std::vector<std::string> names = {"model.decoder.embed_tokens.weight"};
      if (c_.tied) names.push_back("lm_head.weight");
      add_tied("decoder.embed_tokens", names, {vt, dm_});
    }
    if (!c_.tied) add("output.weight", "lm_head.weight", {vt, dm_});
    std::vector<float> bias = hf_.take("final_logits_bias", {1, vt});
    out_.push_back({"output.bias", {vt}, std::move(bias)});
  }

  // Sinusoid tables, if the file carries them, must be the ones we compute (else they were trained).
  void check_positions() {
    for (const std::string name :
         {"model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"}) {
      if (!hf_.has(name)) continue;
      const std::vector<float> table = hf_.take(name, {c_.max_positions, dm_});
      const std::vector<float> expected =
          sinusoid_table(Positions::kSinusoidalConcat, c_.max_positions, c_.d_model);
      for (size_t i = 0; i < table.size(); ++i) {
        if (std::fabs(table[i] - expected[i]) > 2e-3f) {
          hf_.fail("tensor '" + name + "' is not the sinusoidal table Marian models use (row " +
                   std::to_string(i / c_.d_model) + ", column " + std::to_string(i % c_.d_model) +
                   "): learned positions are not supported");
        }
      }
    }
  }

  void layers() {
    for (int i = 0; i < c_.encoder_layers; ++i) {
      const std::string ours = "encoder.layers." + std::to_string(i), theirs = "model." + ours;
      attention(ours + ".self_attn", theirs + ".self_attn");
      norm(ours + ".self_attn_norm", theirs + ".self_attn_layer_norm");
      feed_forward(ours, theirs);
      norm(ours + ".ffn_norm", theirs + ".final_layer_norm");
    }
    for (int i = 0; i < c_.decoder_layers; ++i) {
      const std::string ours = "decoder.layers." + std::to_string(i), theirs = "model." + ours;
      attention(ours + ".self_attn", theirs + ".self_attn");
      norm(ours + ".self_attn_norm", theirs + ".self_attn_layer_norm");
      attention(ours + ".cross_attn", theirs + ".encoder_attn");
      norm(ours + ".cross_attn_norm", theirs + ".encoder_attn_layer_norm");
      feed_forward(ours, theirs);
      norm(ours + ".ffn_norm", theirs + ".final_layer_norm");
    }
  }

  std::vector<NamedTensor> take_result() { return std::move(out_); }

 private:
  void add(const std::string& ours, const std::string& theirs, std::vector<int64_t> shape) {
    out_.push_back({ours, shape, hf_.take(theirs, shape)});
  }

  // Tied embeddings: one of several names holds them; any other present copy must be identical.
  void add_tied(const std::string& ours, const std::vector<std::string>& names, std::vector<int64_t> shape) {
    std::string primary;
    for (const auto& n : names) {
      if (hf_.has(n)) {
        primary = n;
        break;
      }
    }
    if (primary.empty()) hf_.fail("missing tensor '" + names[0] + "'");
    out_.push_back({ours, shape, hf_.take(primary, shape)});
    for (const auto& n : names) {
      if (n != primary && hf_.has(n)) hf_.take_duplicate(n, primary, out_.back().values, shape);
    }
  }

  void attention(const std::string& ours, const std::string& theirs) {
    for (const char* p : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
      add(ours + "." + p + ".weight", theirs + "." + p + ".weight", {dm_, dm_});
      add(ours + "." + p + ".bias", theirs + "." + p + ".bias", {dm_});
    }
  }

  void norm(const std::string& ours, const std::string& theirs) {
    add(ours + ".weight", theirs + ".weight", {dm_});
    add(ours + ".bias", theirs + ".bias", {dm_});
  }

  void feed_forward(const std::string& ours, const std::string& theirs) {
    add(ours + ".fc1.weight", theirs + ".fc1.weight", {ffn_, dm_});
    add(ours + ".fc1.bias", theirs + ".fc1.bias", {ffn_});
    add(ours + ".fc2.weight", theirs + ".fc2.weight", {dm_, ffn_});
    add(ours + ".fc2.bias", theirs + ".fc2.bias", {dm_});
  }

  HfTensors& hf_;
  const HfConfig& c_;
  const int64_t dm_, ffn_;
  std::vector<NamedTensor> out_;
};

}  // namespace

MappedTensors map_hf_tensors(const std::string& path, const HfConfig& config) {
  HfTensors hf(path);
  HfMapper mapper(hf, config);
  mapper.embeddings();
  mapper.check_positions();
  mapper.layers();
  hf.check_all_used();
  return {mapper.take_result(), hf.all_f16()};
}

}  // namespace models
