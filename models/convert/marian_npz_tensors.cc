#include "models/convert/marian_npz_tensors.h"

#include <memory>
#include <set>
#include <utility>

#include "core/regular_file.h"
#include "models/convert/convert_common.h"
#include "models/convert/convert_marian_npz.h"
#include "models/convert/marian_bin.h"
#include "models/convert/npz.h"
#include "models/model_error.h"

namespace models {

namespace {

// Whether the file is meant as an .npz: named so, or starting as a zip archive does. Any other file gets
// the .bin reader's precise refusal.
bool is_npz(const std::string& path) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npz") == 0) return true;
  return core::regular_file_head(path, 2) == "PK";
}

// The model file's arrays: an .npz, or Marian's binary model.bin (told apart by its first bytes).
class ModelArrays {
 public:
  explicit ModelArrays(const std::string& path) {
    if (!is_npz(path)) {
      bin_ = std::make_unique<MarianBinFile>(path);
    } else {
      npz_ = std::make_unique<NpzFile>(path);
    }
  }
  const std::string& path() const { return bin_ ? bin_->path() : npz_->path(); }
  std::vector<std::string> names() const { return bin_ ? bin_->names() : npz_->names(); }
  bool has(const std::string& name) const { return bin_ ? bin_->has(name) : npz_->has(name); }
  NpyArray read(const std::string& name) const { return bin_ ? bin_->read(name) : npz_->read(name); }

 private:
  std::unique_ptr<MarianBinFile> bin_;
  std::unique_ptr<NpzFile> npz_;
};

// The model file's arrays taken by name: shape-checked, marked as used.
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
  ModelArrays file_;
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

MarianConfig read_architecture(NpzTensors& npz, const std::string& npz_path) {
  if (!npz.has("special:model.yml")) {
    npz.fail("no 'special:model.yml' array: cannot tell the architecture (Marian models carry one)");
  }
  const NpyArray a = npz.take_array("special:model.yml");
  if (a.dtype != NpyDType::kI8 && a.dtype != NpyDType::kU8) {
    npz.fail("array 'special:model.yml': expected bytes, got dtype " + std::string(npy_dtype_name(a.dtype)));
  }
  return parse_model_yml(FlatYaml::parse(a.data, npz_path + ": special:model.yml"));
}

// Our tensors in checkpoint order, each taken from the .npz by its Marian name.
class MarianMapper {
 public:
  MarianMapper(NpzTensors& npz, MarianModel& model)
      : npz_(npz), m_(model), c_(model.config), dm_(model.config.d_model), ffn_(model.config.ffn_dim) {}

  void embeddings(const MarianVocab& source_vocab, const MarianVocab& target_vocab) {
    m_.source_vocab_size = embedding(m_.shared ? "Wemb" : "encoder_Wemb", 0);
    m_.target_vocab_size = m_.shared ? m_.source_vocab_size : embedding("decoder_Wemb", 1);
    const int64_t vs = m_.source_vocab_size, vt = m_.target_vocab_size;
    if (m_.shared && c_.dim_vocabs.size() > 1 && c_.dim_vocabs[1] != vs - 1) {
      npz_.fail("shared embeddings 'Wemb' need equal dim-vocabs, got " + std::to_string(c_.dim_vocabs[0]) +
                " and " + std::to_string(c_.dim_vocabs[1]));
    }
    for (const MarianVocab* v : {&source_vocab, &target_vocab}) {
      const int64_t rows = (v == &source_vocab ? vs : vt) - 1;
      // Fewer ids than rows means a vocabulary of another model: rows without a piece would decode to
      // nothing.
      if (v->size != rows) {
        throw ModelError(v->path + ": " + std::to_string(v->size) + " ids, but the model's embeddings have " +
                         std::to_string(rows) + " rows");
      }
    }
  }

  void output() {
    const int64_t vt = m_.target_vocab_size;
    if (!m_.tied_output) {
      std::vector<float> w = npz_.take("decoder_ff_logit_out_W", {dm_, vt - 1});
      w = transpose(w, dm_, vt - 1);
      w.resize(static_cast<size_t>(vt * dm_), 0.0f);
      out_.push_back({"output.weight", {vt, dm_}, std::move(w)});
    }
    std::vector<float> b = c_.omit_bias ? std::vector<float>(static_cast<size_t>(vt - 1), 0.0f)
                                        : npz_.take("decoder_ff_logit_out_b", {vt - 1});
    b.push_back(kMarianPadLogit);
    out_.push_back({"output.bias", {vt}, std::move(b)});
  }

  void layers() {
    for (int n = 1; n <= c_.encoder_layers; ++n) {
      const std::string ours = "encoder.layers." + std::to_string(n - 1),
                        theirs = "encoder_l" + std::to_string(n);
      attention(ours + ".self_attn", theirs + "_self");
      norm(ours + ".self_attn_norm", theirs + "_self_Wo_ln");
      feed_forward(ours, theirs + "_ffn");
      norm(ours + ".ffn_norm", theirs + "_ffn_ffn_ln");
    }
    for (int n = 1; n <= c_.decoder_layers; ++n) {
      const std::string ours = "decoder.layers." + std::to_string(n - 1),
                        theirs = "decoder_l" + std::to_string(n);
      if (c_.ssru) {
        ssru(ours, theirs + "_rnn");
      } else {
        attention(ours + ".self_attn", theirs + "_self");
        norm(ours + ".self_attn_norm", theirs + "_self_Wo_ln");
      }
      attention(ours + ".cross_attn", theirs + "_context");
      norm(ours + ".cross_attn_norm", theirs + "_context_Wo_ln");
      feed_forward(ours, theirs + "_ffn");
      norm(ours + ".ffn_norm", theirs + "_ffn_ffn_ln");
    }
  }

  std::vector<NamedTensor> take_result() { return std::move(out_); }

 private:
  // Embeddings: [V-1, d] without a pad row; we append pad = V-1 as a zero row (also the decoder start).
  int64_t embedding(const std::string& name, int side) {
    std::vector<int64_t> shape;
    std::vector<float> v = npz_.take(name, {}, &shape);
    if (shape.size() != 2 || shape[1] != dm_) {
      npz_.fail("array '" + name + "': expected shape [vocab, " + std::to_string(dm_) + "], got " +
                shape_to_string(shape));
    }
    const int64_t rows = shape[0];
    if (static_cast<size_t>(side) < c_.dim_vocabs.size() && c_.dim_vocabs[side] != rows) {
      npz_.fail("array '" + name + "' has " + std::to_string(rows) +
                " rows but special:model.yml dim-vocabs says " + std::to_string(c_.dim_vocabs[side]));
    }
    v.resize(static_cast<size_t>((rows + 1) * dm_), 0.0f);
    out_.push_back(
        {side == 0 ? "encoder.embed_tokens" : "decoder.embed_tokens", {rows + 1, dm_}, std::move(v)});
    return rows + 1;
  }

  void linear(const std::string& ours, const std::string& weight, const std::string& bias, int64_t in,
              int64_t out_dim) {
    const std::vector<float> w = npz_.take(weight, {in, out_dim});  // Marian: [in, out]
    out_.push_back({ours + ".weight", {out_dim, in}, transpose(w, in, out_dim)});
    out_.push_back({ours + ".bias", {out_dim}, npz_.take(bias, {out_dim})});
  }

  void attention(const std::string& ours, const std::string& theirs) {
    for (const auto& [p, m] : {std::pair<const char*, const char*>{"q_proj", "q"},
                               {"k_proj", "k"},
                               {"v_proj", "v"},
                               {"out_proj", "o"}}) {
      linear(ours + "." + p, theirs + "_W" + m, theirs + "_b" + m, dm_, dm_);
    }
  }

  // Marian's SSRU layer: W and Wf are [in, out] like every Marian weight; its post-processing LayerNorm
  // is named after the "_ffn" suffix Marian gives it.
  void ssru(const std::string& ours, const std::string& theirs) {
    out_.push_back(
        {ours + ".ssru_input.weight", {dm_, dm_}, transpose(npz_.take(theirs + "_W", {dm_, dm_}), dm_, dm_)});
    linear(ours + ".ssru_forget", theirs + "_Wf", theirs + "_bf", dm_, dm_);
    norm(ours + ".ssru_norm", theirs + "_ffn_ln");
  }

  void norm(const std::string& ours, const std::string& theirs) {
    out_.push_back({ours + ".weight", {dm_}, npz_.take(theirs + "_scale", {dm_})});
    out_.push_back({ours + ".bias", {dm_}, npz_.take(theirs + "_bias", {dm_})});
  }

  void feed_forward(const std::string& ours, const std::string& theirs) {
    linear(ours + ".fc1", theirs + "_W1", theirs + "_b1", dm_, ffn_);
    linear(ours + ".fc2", theirs + "_W2", theirs + "_b2", ffn_, dm_);
  }

  NpzTensors& npz_;
  MarianModel& m_;
  const MarianConfig& c_;
  const int64_t dm_, ffn_;
  std::vector<NamedTensor> out_;
};

}  // namespace

MarianModel map_marian_tensors(const std::string& npz_path, const MarianVocab& source_vocab,
                               const MarianVocab& target_vocab) {
  NpzTensors npz(npz_path);
  MarianModel model;
  model.config = read_architecture(npz, npz_path);
  model.shared = model.config.tied_all || model.config.tied_src;
  model.tied_output = model.config.tied_all || model.config.tied;
  MarianMapper mapper(npz, model);
  mapper.embeddings(source_vocab, target_vocab);
  mapper.output();
  mapper.layers();
  npz.check_all_used();
  model.tensors = mapper.take_result();
  model.all_source_f16 = npz.all_f16();
  return model;
}

}  // namespace models
