#include "models/transformer_weights.h"

#include "models/positions.h"

namespace models {

namespace {

class WeightLoader {
 public:
  WeightLoader(Checkpoint& ckpt) : ckpt_(ckpt), c_(ckpt.description().config) {}

  Linear linear(const std::string& scope, int out, int in) {
    return {ckpt_.get(scope + ".weight", {out, in}), ckpt_.get(scope + ".bias", {out}), out, in};
  }
  Norm norm(const std::string& scope) {
    return {ckpt_.get(scope + ".weight", {c_.d_model}), ckpt_.get(scope + ".bias", {c_.d_model})};
  }
  AttentionWeights attention(const std::string& scope) {
    const int d = c_.d_model;
    return {linear(scope + ".q_proj", d, d), linear(scope + ".k_proj", d, d), linear(scope + ".v_proj", d, d),
            linear(scope + ".out_proj", d, d)};
  }
  EncoderLayerWeights encoder_layer(const std::string& s) {
    return {attention(s + ".self_attn"), norm(s + ".self_attn_norm"),
            linear(s + ".fc1", c_.ffn_dim, c_.d_model), linear(s + ".fc2", c_.d_model, c_.ffn_dim),
            norm(s + ".ffn_norm")};
  }
  DecoderLayerWeights decoder_layer(const std::string& s) {
    return {attention(s + ".self_attn"),
            norm(s + ".self_attn_norm"),
            attention(s + ".cross_attn"),
            norm(s + ".cross_attn_norm"),
            linear(s + ".fc1", c_.ffn_dim, c_.d_model),
            linear(s + ".fc2", c_.d_model, c_.ffn_dim),
            norm(s + ".ffn_norm")};
  }
  const float* get(const std::string& name, const std::vector<int64_t>& shape) {
    return ckpt_.get(name, shape);
  }

 private:
  Checkpoint& ckpt_;
  const ModelConfig& c_;
};

// Repacks every projection once for core::packed_linear (skipped on CPUs without a packed kernel) and
// frees the unpacked f32 copies nothing else reads (a tied output matrix is also the embedding: kept).
void pack_projections(Checkpoint& checkpoint, TransformerWeights& w) {
  if (core::packed_isa() == core::PackedIsa::kNone) return;
  auto pack = [&](Linear& l) {
    w.packed.push_back(std::make_unique<core::PackedMatrix>(l.weight, l.out, l.in));
    l.packed = w.packed.back().get();
    if (l.weight != w.src_embed && l.weight != w.tgt_embed) {
      checkpoint.release(l.weight);
      l.weight = nullptr;
    }
  };
  auto pack_attention = [&pack](AttentionWeights& a) {
    for (Linear* l : {&a.q, &a.k, &a.v, &a.o}) pack(*l);
  };
  for (EncoderLayerWeights& layer : w.encoder) {
    pack_attention(layer.self_attn);
    pack(layer.fc1);
    pack(layer.fc2);
  }
  for (DecoderLayerWeights& layer : w.decoder) {
    pack_attention(layer.self_attn);
    pack_attention(layer.cross_attn);
    pack(layer.fc1);
    pack(layer.fc2);
  }
  pack(w.output);
}

}  // namespace

TransformerWeights load_weights(Checkpoint& checkpoint) {
  const ModelConfig& c = checkpoint.description().config;
  WeightLoader load(checkpoint);
  TransformerWeights w;
  const int d = c.d_model;
  w.src_embed = load.get("encoder.embed_tokens", {c.src_vocab_size, d});
  w.tgt_embed = c.shared_embeddings ? w.src_embed : load.get("decoder.embed_tokens", {c.tgt_vocab_size, d});
  if (c.positions == Positions::kTable) {
    w.src_positions = load.get("encoder.positions", {c.max_positions, d});
    w.tgt_positions = load.get("decoder.positions", {c.max_positions, d});
  } else {
    w.sinusoids = sinusoid_table(c.positions, c.max_positions, d);
    w.src_positions = w.tgt_positions = w.sinusoids.data();
  }
  w.output.weight = c.tied_output ? w.tgt_embed : load.get("output.weight", {c.tgt_vocab_size, d});
  w.output.bias = c.output_bias ? load.get("output.bias", {c.tgt_vocab_size}) : nullptr;
  w.output.out = c.tgt_vocab_size;
  w.output.in = d;
  for (int i = 0; i < c.encoder_layers; ++i)
    w.encoder.push_back(load.encoder_layer("encoder.layers." + std::to_string(i)));
  for (int i = 0; i < c.decoder_layers; ++i)
    w.decoder.push_back(load.decoder_layer("decoder.layers." + std::to_string(i)));
  if (c.final_norm) {
    w.encoder_final = load.norm("encoder.final_norm");
    w.decoder_final = load.norm("decoder.final_norm");
  }
  checkpoint.check_all_used();
  pack_projections(checkpoint, w);
  checkpoint.drop_resident_pages();
  return w;
}

}  // namespace models
