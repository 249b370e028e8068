#include "models/convert/marian_architecture.h"

#include <string>

#include "models/model_error.h"

namespace models {

namespace {

std::string strip_dropout(const std::string& ops) {
  std::string out;
  for (char c : ops) {
    if (c != 'd') out += c;
  }
  return out;
}

}  // namespace

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
  // The layer Marian trains to align (1-based there): nmt's default for --alignment.
  const std::string aligned = y.string("transformer-guided-alignment-layer", "last");
  if (aligned != "last") {
    const int64_t layer = y.integer("transformer-guided-alignment-layer", 0);
    if (layer < 1 || layer > c.decoder_layers)
      refuse("transformer-guided-alignment-layer", "must be 'last' or 1..dec-depth");
    c.alignment_layer = static_cast<int>(layer - 1);
  }
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
  if (autoreg == "rnn") {
    // The Firefox / Bergamot students: an SSRU per decoder layer.
    const std::string cell = y.string("dec-cell", "gru");
    if (cell != "ssru") refuse("dec-cell", "'" + cell + "' is not supported (only ssru)");
    if (y.boolean("layer-normalization", false))
      refuse("layer-normalization", "true (a LayerNorm inside the SSRU) is not supported");
    c.ssru = true;
  } else if (autoreg != "self-attention") {
    refuse("transformer-decoder-autoreg", "'" + autoreg + "' is not supported (self-attention, rnn)");
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

}  // namespace models
