#include "models/convert/marian_npz_tensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

#include "core/ends_with.h"
#include "core/int8_gemm.h"
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
  if (core::ends_with(path, ".npz")) return true;
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
  bool intgemm8(const std::string& name) const { return bin_ && bin_->intgemm8(name); }
  float intgemm8_multiplier(const std::string& name) const { return bin_->intgemm8_multiplier(name); }

 private:
  std::unique_ptr<MarianBinFile> bin_;
  std::unique_ptr<NpzFile> npz_;
};

// int8 values dequantized as Marian dequantizes them: q * (1 / m).
std::vector<float> dequantized(const std::vector<int8_t>& q, float multiplier) {
  const float scale = 1.0f / multiplier;
  std::vector<float> v(q.size());
  for (size_t i = 0; i < q.size(); ++i) v[i] = static_cast<float>(q[i]) * scale;
  return v;
}

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
  // An intgemm8 array read here is dequantized as Marian loads it (q * (1 / m)): marian-conv quantizes
  // whatever has "Wemb" in its name, Wemb_QuantMultA included.
  std::vector<float> take(const std::string& name, const std::vector<int64_t>& shape,
                          std::vector<int64_t>* actual = nullptr) {
    if (file_.intgemm8(name)) return take_dequantized(name, shape, actual);
    NpyArray a = take_array(name);
    if (a.dtype != NpyDType::kF32 && a.dtype != NpyDType::kF16) {
      fail("array '" + name + "': dtype " + npy_dtype_name(a.dtype) +
           " is not a float type ('<f4' or '<f2')");
    }
    if (a.dtype != NpyDType::kF16) all_f16_ = false;
    check_shape(name, a.shape, shape, actual);
    std::vector<float> v = a.to_f32();
    convert_detail::check_no_nan(v, file_.path(), name);
    return v;
  }

  bool intgemm8(const std::string& name) const { return file_.intgemm8(name); }
  bool any_intgemm8() const {
    for (const std::string& name : file_.names())
      if (file_.intgemm8(name)) return true;
    return false;
  }
  // An intgemm8 matrix of Marian shape `shape` (MarianBinFile::intgemm8): its int8 values as stored and
  // its multiplier.
  // `shape` empty: any, returned in *actual.
  std::vector<int8_t> take_intgemm8(const std::string& name, const std::vector<int64_t>& shape,
                                    float* multiplier, std::vector<int64_t>* actual = nullptr) {
    NpyArray a = take_array(name);
    if (actual) *actual = a.shape;
    if (!shape.empty() && a.shape != shape)
      fail("array '" + name + "': expected shape " + shape_to_string(shape) + ", got " +
           shape_to_string(a.shape));
    *multiplier = file_.intgemm8_multiplier(name);
    all_f16_ = false;
    std::vector<int8_t> q(a.data.size());
    std::memcpy(q.data(), a.data.data(), q.size());
    for (size_t i = 0; i < q.size(); ++i) {
      if (q[i] == -128) fail("array '" + name + "': holds -128 (intgemm8 values are in [-127, 127])");
    }
    return q;
  }

  std::vector<float> take_dequantized(const std::string& name, const std::vector<int64_t>& shape,
                                      std::vector<int64_t>* actual) {
    std::vector<int64_t> stored;
    float multiplier = 0.0f;
    const std::vector<int8_t> q = take_intgemm8(name, {}, &multiplier, &stored);
    check_shape(name, stored, shape, actual);
    return dequantized(q, multiplier);
  }

  // `stored` into *actual when asked, else checked against `shape` (a vector [n] may be stored as [1, n]).
  void check_shape(const std::string& name, const std::vector<int64_t>& stored,
                   const std::vector<int64_t>& shape, std::vector<int64_t>* actual) const {
    if (actual) {
      *actual = stored;
      return;
    }
    const bool vector_ok = shape.size() == 1 && stored == std::vector<int64_t>{1, shape[0]};
    if (stored != shape && !vector_ok) {
      const std::vector<int64_t> shown = shape.size() == 1 ? std::vector<int64_t>{1, shape[0]} : shape;
      fail("array '" + name + "': expected shape " + shape_to_string(shown) + ", got " +
           shape_to_string(stored));
    }
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

// int8 values with one scale for the whole matrix: t.values dequantized from them as Marian does (q * (1 /
// m)).
void set_int8(NamedTensor& t, std::vector<int8_t> q, float multiplier) {
  t.values = dequantized(q, multiplier);
  t.int8 = std::move(q);
  t.int8_scales.assign(static_cast<size_t>(t.shape[0]), 1.0f / multiplier);
  t.int8_multiplier = multiplier;
}

// Marian's int8 GEMM quantizes a float weight at run time by one multiplier, 127 / max|w|, for the whole
// matrix.
void quantize_whole(NamedTensor& t) {
  float amax = 0.0f;
  for (float v : t.values) amax = std::max(amax, std::fabs(v));
  const float multiplier = amax == 0.0f ? 1.0f : 127.0f / amax;
  t.int8.resize(t.values.size());
  core::quantize_row_by(t.values.data(), static_cast<int>(t.values.size()), multiplier, t.int8.data());
  t.int8_scales.assign(static_cast<size_t>(t.shape[0]), 1.0f / multiplier);
  t.int8_multiplier = multiplier;
}

// Rows of zeros (scales kept) up to `rows`: the pad row nmt appends to Marian's vocabularies.
void pad_rows(NamedTensor& t, int64_t rows) {
  const size_t cols = static_cast<size_t>(t.shape[1]);
  t.shape[0] = rows;
  t.values.resize(static_cast<size_t>(rows) * cols, 0.0f);
  if (!t.int8.empty()) {
    t.int8.resize(static_cast<size_t>(rows) * cols, 0);
    t.int8_scales.resize(static_cast<size_t>(rows), t.int8_scales.empty() ? 1.0f : t.int8_scales.back());
  }
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
  MarianMapper(NpzTensors& npz, MarianModel& model, MarianGemm gemm)
      : npz_(npz),
        m_(model),
        c_(model.config),
        dm_(model.config.d_model),
        ffn_(model.config.ffn_dim),
        gemm_(gemm) {}

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
    if (m_.tied_output) {
      const std::string theirs = m_.shared ? "Wemb" : "decoder_Wemb";
      NamedTensor& table = out_[m_.shared ? 0 : 1];
      if (m_.intgemm && gemm_ != MarianGemm::kFloat32 && table.int8.empty()) {
        // Marian looks the float table up and multiplies by its int8 copy: two tensors here.
        m_.tied_output = false;
        NamedTensor copy{"output.weight", table.shape, table.values};
        quantize_whole(copy);
        out_.push_back(std::move(copy));
        alpha("output.weight", theirs);
      } else if (m_.intgemm && gemm_ == MarianGemm::kFloat32) {
        table.keep_f32 = true;      // Marian's output product is a float one
        alpha(table.name, theirs);  // read only when gemm-precision takes alphas: marked as seen
      } else {
        const std::string name = table.name;  // alpha() appends to out_
        alpha(name, theirs);
      }
    } else {
      NamedTensor w = weight("output.weight", "decoder_ff_logit_out_W", dm_, vt - 1);
      pad_rows(w, vt);
      out_.push_back(std::move(w));
      alpha("output.weight", "decoder_ff_logit_out_W");
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
    NamedTensor t{side == 0 ? "encoder.embed_tokens" : "decoder.embed_tokens", {}, {}};
    if (npz_.intgemm8(name)) {
      float multiplier = 0.0f;
      std::vector<int8_t> q = npz_.take_intgemm8(name, {}, &multiplier, &t.shape);
      if (t.shape.size() != 2 || t.shape[1] != dm_) shape_error(name, t.shape);
      set_int8(t, std::move(q), multiplier);
    } else {
      t.values = npz_.take(name, {}, &t.shape);
      if (t.shape.size() != 2 || t.shape[1] != dm_) shape_error(name, t.shape);
      t.keep_f32 = m_.intgemm;  // Marian looks float tables up as they are
    }
    const int64_t rows = t.shape[0];
    if (static_cast<size_t>(side) < c_.dim_vocabs.size() && c_.dim_vocabs[side] != rows) {
      npz_.fail("array '" + name + "' has " + std::to_string(rows) +
                " rows but special:model.yml dim-vocabs says " + std::to_string(c_.dim_vocabs[side]));
    }
    pad_rows(t, rows + 1);
    out_.push_back(std::move(t));
    return rows + 1;
  }
  [[noreturn]] void shape_error(const std::string& name, const std::vector<int64_t>& shape) {
    npz_.fail("array '" + name + "': expected shape [vocab, " + std::to_string(dm_) + "], got " +
              shape_to_string(shape));
  }

  // A Marian weight [in, out] as ours [out, in]: a float array transposed, quantized as Marian's int8
  // products do when gemm-precision asks for int8; an intgemm8 matrix (stored transposed) as its values.
  NamedTensor weight(const std::string& ours, const std::string& theirs, int64_t in, int64_t out_dim) {
    NamedTensor t{ours, {out_dim, in}, {}};
    if (npz_.intgemm8(theirs)) {
      float multiplier = 0.0f;
      std::vector<int8_t> q = npz_.take_intgemm8(theirs, {in, out_dim}, &multiplier);
      set_int8(t, std::move(q), multiplier);
    } else {
      t.values = transpose(npz_.take(theirs, {in, out_dim}), in, out_dim);
      if (m_.intgemm) quantize_whole(t);
    }
    return t;
  }

  // The precomputed activation multiplier of the product by `theirs` (gemm-precision *Alpha*), as our
  // NAME.input_multiplier; other precisions read none (an alpha in the file is then left unused).
  void alpha(const std::string& ours_weight, const std::string& theirs) {
    const std::string name = theirs + "_QuantMultA";
    if (gemm_ != MarianGemm::kInt8Alphas) {
      if (npz_.has(name)) npz_.take_array(name);
      return;
    }
    if (!npz_.has(name)) {
      npz_.fail("no array '" + name +
                "': the decoder configuration's gemm-precision uses the model's precomputed alphas");
    }
    std::vector<float> a = npz_.take(name, {1});
    if (!(a[0] > 0.0f) || !std::isfinite(a[0]))
      npz_.fail("array '" + name + "': alpha " + std::to_string(a[0]) + " (expected finite and positive)");
    out_.push_back({ours_weight + kInputMultiplierSuffix, {1}, std::move(a)});
  }

  void linear(const std::string& ours, const std::string& weight_name, const std::string& bias, int64_t in,
              int64_t out_dim) {
    out_.push_back(weight(ours + ".weight", weight_name, in, out_dim));
    alpha(ours + ".weight", weight_name);
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
    out_.push_back(weight(ours + ".ssru_input.weight", theirs + "_W", dm_, dm_));
    alpha(ours + ".ssru_input.weight", theirs + "_W");
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
  const MarianGemm gemm_;
  std::vector<NamedTensor> out_;
};

}  // namespace

MarianModel map_marian_tensors(const std::string& npz_path, const MarianVocab& source_vocab,
                               const MarianVocab& target_vocab, MarianGemm gemm) {
  NpzTensors npz(npz_path);
  MarianModel model;
  model.config = read_architecture(npz, npz_path);
  model.shared = model.config.tied_all || model.config.tied_src;
  model.tied_output = model.config.tied_all || model.config.tied;
  model.intgemm = gemm != MarianGemm::kFloat32 || npz.any_intgemm8();
  MarianMapper mapper(npz, model, gemm);
  mapper.embeddings(source_vocab, target_vocab);
  mapper.output();
  mapper.layers();
  npz.check_all_used();
  model.tensors = mapper.take_result();
  model.all_source_f16 = npz.all_f16();
  return model;
}

}  // namespace models
