#include "models/transformer_weights.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/weight_packer.h"
#include "models/model_error.h"
#include "models/positions.h"

namespace models {

namespace {

class WeightLoader {
 public:
  WeightLoader(Checkpoint& ckpt, TransformerWeights& w)
      : ckpt_(ckpt),
        c_(ckpt.description().config),
        arena_(w.packed_arena),
        int8_(w.int8),
        stacked_biases_(w.stacked_biases),
        packer_(w.packed_arena, w.packed) {}

  Linear linear(const std::string& scope, int out, int in) {
    Linear l{nullptr, ckpt_.get(scope + ".bias", {out}), out, in};
    set_weight(l, scope + ".weight");
    return l;
  }
  Linear linear_without_bias(const std::string& scope, int out, int in) {
    Linear l{nullptr, nullptr, out, in};
    set_weight(l, scope + ".weight");
    return l;
  }
  // int8 panels for an i8 tensor, else whatever form core's f32 products use.
  void set_weight(Linear& l, const std::string& name) {
    if (is_int8(name)) {
      l.int8 = pack_int8({name}, {l.out}, l.in);
      return;
    }
    set_f32(l, packer_.prepare(stored(name, l.out, l.in), l.in));
  }
  // A tied output projection is the target embedding: packed, it serves the lookups too.
  Embedding tied_output(Linear& l, const std::string& embedding_name) {
    set_weight(l, embedding_name);
    if (l.int8) return Embedding{nullptr, nullptr, l.int8};
    return l.packed ? Embedding{nullptr, l.packed} : Embedding{l.weight, nullptr};
  }
  // An untied embedding [vocab, d]: f32 rows, or an int8 table looked up row by row.
  Embedding embedding(const std::string& name, int vocab) {
    if (is_int8(name)) return Embedding{nullptr, nullptr, pack_int8({name}, {vocab}, c_.d_model, false)};
    return Embedding{get(name, {vocab, c_.d_model})};
  }
  Norm norm(const std::string& scope) {
    return {ckpt_.get(scope + ".weight", {c_.d_model}), ckpt_.get(scope + ".bias", {c_.d_model})};
  }
  AttentionWeights attention(const std::string& scope) {
    const int d = c_.d_model;
    const std::string q = scope + ".q_proj.weight", k = scope + ".k_proj.weight",
                      v = scope + ".v_proj.weight";
    const int int8_parts = is_int8(q) + is_int8(k) + is_int8(v);
    if (int8_parts == 3 && d % core::Int8Matrix::kPanel == 0 && same_input_multiplier({q, k, v}))
      return int8_attention(scope);
    if (int8_parts > 0) {
      return {linear(scope + ".q_proj", d, d), linear(scope + ".k_proj", d, d),
              linear(scope + ".v_proj", d, d), linear(scope + ".out_proj", d, d), Linear{}};
    }
    // Stacked as [3d, d] where core's products allow: one product of 3d columns per step instead of
    // three of d (a narrow product runs well below the kernel's best; see docs/speed.md).
    AttentionWeights a;
    std::vector<core::StoredWeights> blocks;
    std::vector<const float*> biases;
    Linear* parts[3] = {&a.q, &a.k, &a.v};
    const char* names[3] = {".q_proj", ".k_proj", ".v_proj"};
    for (int i = 0; i < 3; ++i) {
      const std::string name = scope + names[i];
      blocks.push_back(stored(name + ".weight", d, d));
      *parts[i] = Linear{nullptr, ckpt_.get(name + ".bias", {d}), d, d};
      biases.push_back(parts[i]->bias);
    }
    std::vector<core::F32Weights> each;
    const core::F32Weights stacked = packer_.prepare_stacked(blocks, d, each);
    for (int i = 0; i < 3; ++i) set_f32(*parts[i], each[i]);
    a.o = linear(scope + ".out_proj", d, d);
    if (!stacked.packed) return a;
    a.qkv = Linear{nullptr, nullptr, 3 * d, d};
    set_f32(a.qkv, stacked);
    if (biases[0] || biases[1] || biases[2]) {
      std::vector<float>& bias = stacked_biases_.emplace_back(static_cast<size_t>(3) * d, 0.0f);
      for (int i = 0; i < 3; ++i)
        if (biases[i]) std::copy(biases[i], biases[i] + d, bias.begin() + static_cast<size_t>(i) * d);
      a.qkv.bias = bias.data();
    }
    return a;
  }
  EncoderLayerWeights encoder_layer(const std::string& s) {
    return {attention(s + ".self_attn"), norm(s + ".self_attn_norm"),
            linear(s + ".fc1", c_.ffn_dim, c_.d_model), linear(s + ".fc2", c_.d_model, c_.ffn_dim),
            norm(s + ".ffn_norm")};
  }
  DecoderLayerWeights decoder_layer(const std::string& s) {
    const int d = c_.d_model;
    DecoderLayerWeights layer;
    if (c_.decoder_recurrence == DecoderRecurrence::kSsru) {
      layer.ssru_input = linear_without_bias(s + ".ssru_input", d, d);
      layer.ssru_forget = linear(s + ".ssru_forget", d, d);
      layer.self_attn_norm = norm(s + ".ssru_norm");
    } else {
      layer.self_attn = attention(s + ".self_attn");
      layer.self_attn_norm = norm(s + ".self_attn_norm");
    }
    layer.cross_attn = attention(s + ".cross_attn");
    layer.cross_attn_norm = norm(s + ".cross_attn_norm");
    layer.fc1 = linear(s + ".fc1", c_.ffn_dim, d);
    layer.fc2 = linear(s + ".fc2", d, c_.ffn_dim);
    layer.ffn_norm = norm(s + ".ffn_norm");
    return layer;
  }
  const float* get(const std::string& name, const std::vector<int64_t>& shape) {
    return ckpt_.get(name, shape);
  }

 private:
  bool is_int8(const std::string& name) const {
    const TensorEntry* t = ckpt_.find(name);
    return t && t->dtype == DType::kI8;
  }

  // The fixed input multiplier of the product of i8 tensor `name` (intgemm's scheme), 0 when it has none.
  float input_multiplier(const std::string& name) {
    const std::string multiplier = name + kInputMultiplierSuffix;
    if (c_.int8_scheme == Int8Scheme::kNmt || !ckpt_.find(multiplier)) return 0.0f;
    const float m = *ckpt_.get(multiplier, {1});
    if (!(m > 0.0f) || !std::isfinite(m)) {
      throw ModelError(ckpt_.json_path() + ": tensor '" + multiplier + "' is " + std::to_string(m) +
                       " (expected finite and positive)");
    }
    return m;
  }
  // The i8 tensor `name`'s NAME.weight_multiplier (intgemm's schemes only; else it stays unread and is
  // refused as unexpected) onto rows [first, first + n) of m; each row's scale must be 1 / it, so a
  // multiplier left over from another quantization is refused.
  void set_weight_multiplier(core::Int8Matrix& m, const std::string& name, int first, int n,
                             const float* scales) {
    const std::string multiplier = name + kWeightMultiplierSuffix;
    if (c_.int8_scheme == Int8Scheme::kNmt || !ckpt_.find(multiplier)) return;
    const float mb = *ckpt_.get(multiplier, {1});
    const bool matches = mb > 0.0f && std::isfinite(mb) &&
                         std::all_of(scales, scales + n, [&](float s) { return s == 1.0f / mb; });
    if (!matches) {
      throw ModelError(ckpt_.json_path() + ": tensor '" + multiplier + "' is " + std::to_string(mb) +
                       " (expected finite, positive and the inverse of every scale of '" + name + "')");
    }
    m.set_multipliers(first, n, mb);
  }
  // Whether the tensors' products may share one quantized input: always under nmt's scheme (per row).
  bool same_input_multiplier(const std::vector<std::string>& names) {
    const float first = input_multiplier(names.front());
    for (const std::string& name : names)
      if (input_multiplier(name) != first) return false;
    return true;
  }
  core::Int8InputScaling input_scaling(const std::string& name) {
    using Kind = core::Int8InputScaling::Kind;
    if (c_.int8_scheme == Int8Scheme::kNmt) return {Kind::kPerRow, 0.0f};
    const float m = input_multiplier(name);
    const bool shifted = c_.int8_scheme == Int8Scheme::kIntgemmShifted;
    return m > 0.0f ? core::Int8InputScaling{Kind::kFixed, m, shifted}
                    : core::Int8InputScaling{Kind::kPerMatrix, 0.0f, shifted};
  }

  // q, k and v stacked as one int8 [3d, d] product, each also served by a view of its columns.
  AttentionWeights int8_attention(const std::string& scope) {
    const int d = c_.d_model;
    AttentionWeights a;
    const char* names[3] = {".q_proj", ".k_proj", ".v_proj"};
    Linear* parts[3] = {&a.q, &a.k, &a.v};
    a.qkv = Linear{nullptr, nullptr, 3 * d, d};
    a.qkv.int8 =
        pack_int8({scope + names[0] + ".weight", scope + names[1] + ".weight", scope + names[2] + ".weight"},
                  {d, d, d}, d);
    std::vector<float>& bias = stacked_biases_.emplace_back(static_cast<size_t>(3) * d, 0.0f);
    bool any_bias = false;
    for (int i = 0; i < 3; ++i) {
      *parts[i] = Linear{nullptr, ckpt_.get(scope + names[i] + ".bias", {d}), d, d};
      int8_.push_back(std::make_unique<core::Int8Matrix>(a.qkv.int8->columns(i * d, d)));
      parts[i]->int8 = int8_.back().get();
      if (parts[i]->bias) {
        std::copy(parts[i]->bias, parts[i]->bias + d, bias.begin() + static_cast<size_t>(i) * d);
        any_bias = true;
      }
    }
    a.qkv.bias = any_bias ? bias.data() : nullptr;
    a.o = linear(scope + ".out_proj", d, d);
    return a;
  }

  // The i8 tensors [rows[i], in] stacked into one int8 matrix that int8_ owns, with their scales (each
  // checked finite and positive), read a buffer at a time as core::WeightPacker reads f32 weights.
  // `product`: the matrix multiplies (its input scaling is set), else it is only looked up.
  const core::Int8Matrix* pack_int8(const std::vector<std::string>& names, const std::vector<int>& rows,
                                    int in, bool product = true) {
    int out = 0;
    for (int r : rows) out += r;
    auto m = std::make_unique<core::Int8Matrix>(out, in, &arena_);
    constexpr size_t kBufferBytes = size_t{128} << 10;
    const int step = std::max(1, static_cast<int>(kBufferBytes / static_cast<size_t>(in)));
    if (buffer_.size() < static_cast<size_t>(step) * in) buffer_.resize(static_cast<size_t>(step) * in);
    int first = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      const float* scales = nullptr;
      const TensorEntry& t = ckpt_.int8_entry(names[i], {rows[i], in}, &scales);
      for (int r = 0; r < rows[i]; r += step) {
        const int n = std::min(step, rows[i] - r);
        ckpt_.read(t, static_cast<uint64_t>(r) * in, static_cast<uint64_t>(n) * in, buffer_.data());
        try {
          m->pack_rows(first + r, n, reinterpret_cast<const int8_t*>(buffer_.data()), scales + r);
        } catch (const std::invalid_argument&) {
          throw ModelError(ckpt_.json_path() + ": tensor '" + names[i] +
                           "': holds -128 (i8 weights are in [-127, 127])");
        }
      }
      set_weight_multiplier(*m, names[i], first, rows[i], scales);
      first += rows[i];
    }
    if (product)
      m->set_input_scaling(input_scaling(names.front()));  // the same for all (same_input_multiplier)
    int8_.push_back(std::move(m));
    return int8_.back().get();
  }

  // A [rows, in] f32 or f16 tensor, read a buffer at a time with Checkpoint::read and checked finite while
  // the rows are in L2; or, for BLAS and the portable kernels, the whole f32 tensor (Checkpoint::get).
  core::StoredWeights stored(const std::string& name, int rows, int in) {
    const TensorEntry& t = ckpt_.entry(name, {rows, in});
    const bool f16 = t.dtype == DType::kF16;
    const uint64_t row_bytes = static_cast<uint64_t>(in) * (f16 ? 2 : 4);
    return {rows, f16,
            [this, &t, row_bytes](int first, int n, void* dst) {
              ckpt_.read(t, first * row_bytes, n * row_bytes, dst);
              ckpt_.check_finite(t, dst, n * row_bytes);
            },
            [this, name, rows, in] {
              return ckpt_.get(name, {rows, in});
            }};
  }
  static void set_f32(Linear& l, const core::F32Weights& w) {
    l.weight = w.rows;
    l.packed = w.packed;
  }

  Checkpoint& ckpt_;

  const ModelConfig& c_;
  core::PackedArena& arena_;
  std::vector<std::unique_ptr<core::Int8Matrix>>& int8_;
  std::deque<std::vector<float>>& stacked_biases_;
  core::WeightPacker packer_;
  std::vector<uint8_t> buffer_;  // what pack_int8() reads into
};

}  // namespace

void Embedding::copy_row(int id, int d, float* row) const {
  if (int8) {
    int8->copy_row(id, row);
  } else if (packed) {
    packed->copy_row(id, row);
  } else {
    const float* e = table + static_cast<size_t>(id) * d;
    std::copy(e, e + d, row);
  }
}

TransformerWeights load_weights(Checkpoint& checkpoint) {
  const ModelConfig& c = checkpoint.description().config;
  TransformerWeights w;
  WeightLoader load(checkpoint, w);
  const int d = c.d_model;
  const std::string tgt_embed_name = c.shared_embeddings ? "encoder.embed_tokens" : "decoder.embed_tokens";
  if (c.positions == Positions::kTable) {
    w.src_positions = load.get("encoder.positions", {c.max_positions, d});
    w.tgt_positions = load.get("decoder.positions", {c.max_positions, d});
  } else {
    // In the arena: its huge pages are faulted in anyway, where small fresh pages cost a fault each.
    float* table = static_cast<float*>(
        w.packed_arena.allocate(static_cast<size_t>(c.max_positions) * d * sizeof(float)));
    fill_sinusoid_table(c.positions, c.max_positions, d, table);
    w.src_positions = w.tgt_positions = table;
  }
  w.output.out = c.tgt_vocab_size;
  w.output.in = d;
  w.output.bias = c.output_bias ? load.get("output.bias", {c.tgt_vocab_size}) : nullptr;
  if (c.tied_output) {
    w.tgt_embed = load.tied_output(w.output, tgt_embed_name);
  } else {
    w.tgt_embed = load.embedding(tgt_embed_name, c.tgt_vocab_size);
    load.set_weight(w.output, "output.weight");
  }
  w.src_embed = c.shared_embeddings ? w.tgt_embed : load.embedding("encoder.embed_tokens", c.src_vocab_size);
  for (int i = 0; i < c.encoder_layers; ++i)
    w.encoder.push_back(load.encoder_layer("encoder.layers." + std::to_string(i)));
  for (int i = 0; i < c.decoder_layers; ++i)
    w.decoder.push_back(load.decoder_layer("decoder.layers." + std::to_string(i)));
  if (c.final_norm) {
    w.encoder_final = load.norm("encoder.final_norm");
    w.decoder_final = load.norm("decoder.final_norm");
  }
  checkpoint.check_all_used();
  return w;
}

}  // namespace models
