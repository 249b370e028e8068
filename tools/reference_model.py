"""The reference Transformer of docs/checkpoint.md in PyTorch: positions, layers, the model and its
decoder steps (tools/reference.py drives them).

Written plainly (explicit q/k/v matmuls, additive masks, float32 everywhere) so that it can be read next
to the C++ engine. Every config option of checkpoint format v1 is supported.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import read_checkpoint, sinusoid_table  # noqa: E402

NEG_INF = float("-inf")


# ----------------------------------------------------------------------------------------------
# Positions

def position_table(kind, n_positions, d):
    """Sinusoid table [n_positions, d] (tools/checkpoint.py: models/positions.cc's arithmetic)."""
    return torch.from_numpy(sinusoid_table(kind, n_positions, d))


# ----------------------------------------------------------------------------------------------
# Building blocks

def linear(x, w, b=None):
    """y = x W^T + b, W is [out, in]."""
    y = torch.matmul(x, w.t())
    return y if b is None else y + b


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)   # biased variance
    return (x - mean) / torch.sqrt(var + eps) * w + b


def activation(x, kind):
    if kind == "relu":
        return torch.relu(x)
    if kind == "gelu":                                # exact, erf form
        return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    if kind == "swish":                               # x * sigmoid(x), SiLU
        return x * torch.sigmoid(x)
    raise ValueError(kind)


def split_heads(x, n_heads):
    """[B, T, d] -> [B, H, T, head_dim]; head h = feature columns [h*head_dim, (h+1)*head_dim)."""
    b, t, d = x.shape
    return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)


def merge_heads(x):
    """[B, H, T, head_dim] -> [B, T, d]."""
    b, h, t, dh = x.shape
    return x.transpose(1, 2).reshape(b, t, h * dh)


def attend(q, k, v, mask, record=None):
    """q [B,H,Tq,dh] (already scaled), k/v [B,H,Tk,dh], mask additive, broadcastable to [B,H,Tq,Tk].
    record: a list that receives the weights [B,H,Tq,Tk]."""
    scores = torch.matmul(q, k.transpose(-1, -2))
    if mask is not None:
        scores = scores + mask
    weights = torch.softmax(scores, dim=-1)
    if record is not None:
        record.append(weights)
    return torch.matmul(weights, v)


def causal_mask(t):
    """[T, T] additive: position i sees positions <= i."""
    return torch.triu(torch.full((t, t), NEG_INF), diagonal=1)


def padding_mask(lengths, max_len):
    """[B, 1, 1, L] additive: keys at positions >= length are hidden."""
    pos = torch.arange(max_len)[None, :]
    mask = torch.zeros(len(lengths), max_len)
    mask[pos >= torch.as_tensor(lengths)[:, None]] = NEG_INF
    return mask[:, None, None, :]


# ----------------------------------------------------------------------------------------------
# The model

class Model:
    """Immutable weights + config. Tensors are float32 torch tensors named as in docs/checkpoint.md."""

    def __init__(self, config, tokens, tensors):
        self.config, self.tokens, self.w = config, tokens, tensors
        c = config
        self.d = c["d_model"]
        self.n_heads = c["n_heads"]
        self.head_dim = self.d // self.n_heads
        self.eps = c["layer_norm_eps"]
        self.pre_norm = c["norm"] == "pre"
        self.embed_scale = math.sqrt(self.d) if c["scale_embedding"] else 1.0
        if c["positions"] == "table":
            self.enc_pos, self.dec_pos = tensors["encoder.positions"], tensors["decoder.positions"]
        else:
            self.enc_pos = self.dec_pos = position_table(c["positions"], c["max_positions"], self.d)
        self.src_embed = tensors["encoder.embed_tokens"]
        self.tgt_embed = self.src_embed if c["shared_embeddings"] else tensors["decoder.embed_tokens"]
        self.out_weight = self.tgt_embed if c["tied_output"] else tensors["output.weight"]
        self.out_bias = tensors["output.bias"] if c["output_bias"] else None
        # {"encoder": [], "decoder": [], "cross": []} to record each attention's weights, one entry per layer
        self.record = None

    def recorded(self, kind):
        return None if self.record is None else self.record[kind]

    @classmethod
    def load(cls, model_dir, overrides=None):
        """Load a checkpoint dir; `overrides` replaces config entries (e.g. native Marian semantics)."""
        meta, arrays = read_checkpoint(model_dir)
        config = dict(meta["config"], **(overrides or {}))
        return cls(config, meta["tokens"], {k: torch.from_numpy(v) for k, v in arrays.items()}), meta

    # -- pieces shared by both stacks

    def embed(self, table, positions, ids, first_position=0):
        """ids [B, T] -> [B, T, d]: E[id] * scale + PE[first_position + t]."""
        t = ids.shape[1]
        if first_position + t > positions.shape[0]:
            raise ValueError(f"sequence of {first_position + t} positions, the model has {positions.shape[0]}")
        return table[ids] * self.embed_scale + positions[first_position:first_position + t]

    def norm(self, name, x):
        return layer_norm(x, self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def sublayer(self, norm_name, x, fn):
        """post: LN(x + fn(x)); pre: x + fn(LN(x))."""
        if self.pre_norm:
            return x + fn(self.norm(norm_name, x))
        return self.norm(norm_name, x + fn(x))

    def project(self, prefix, proj, x):
        """One attention projection, split into heads: [B, T, d] -> [B, H, T, dh]."""
        return split_heads(linear(x, self.w[f"{prefix}.{proj}.weight"], self.w[f"{prefix}.{proj}.bias"]),
                           self.n_heads)

    def query(self, prefix, x):
        """q is scaled by head_dim^-0.5 after its bias."""
        return self.project(prefix, "q_proj", x) * (self.head_dim ** -0.5)

    def attn_out(self, prefix, heads):
        return linear(merge_heads(heads), self.w[f"{prefix}.out_proj.weight"], self.w[f"{prefix}.out_proj.bias"])

    def ffn(self, prefix, x):
        h = activation(linear(x, self.w[prefix + ".fc1.weight"], self.w[prefix + ".fc1.bias"]),
                       self.config["activation"])
        return linear(h, self.w[prefix + ".fc2.weight"], self.w[prefix + ".fc2.bias"])

    # -- encoder

    def encode(self, src, lengths):
        """src [B, L] ids (padding beyond lengths[b] is ignored) -> (output [B, L, d], mask [B,1,1,L])."""
        mask = padding_mask(lengths, src.shape[1])
        x = self.embed(self.src_embed, self.enc_pos, src)
        for n in range(self.config["encoder_layers"]):
            p = f"encoder.layers.{n}"

            def self_attn(h, p=p):
                q, k, v = self.query(p + ".self_attn", h), self.project(p + ".self_attn", "k_proj", h), \
                    self.project(p + ".self_attn", "v_proj", h)
                return self.attn_out(p + ".self_attn", attend(q, k, v, mask, self.recorded("encoder")))

            x = self.sublayer(p + ".self_attn_norm", x, self_attn)
            x = self.sublayer(p + ".ffn_norm", x, lambda h, p=p: self.ffn(p, h))
        if self.config["final_norm"]:
            x = self.norm("encoder.final_norm", x)
        return x, mask

    # -- decoder

    def cross_kv(self, enc_out):
        """Cross-attention keys/values of every decoder layer: list of (k, v) [B, H, L, dh]."""
        return [(self.project(f"decoder.layers.{n}.cross_attn", "k_proj", enc_out),
                 self.project(f"decoder.layers.{n}.cross_attn", "v_proj", enc_out))
                for n in range(self.config["decoder_layers"])]

    def decoder_layers(self, x, caches, self_mask, cross, cross_mask, group=1):
        """Run the decoder stack on x [R, T, d] (T new positions).

        caches: per layer a dict {"k","v"} of previous positions' self-attention [R,H,Tp,dh] (updated in
        place; empty dict = none yet) or None (no cache: x holds the whole prefix).
        cross: per layer (k, v) [S, H, L, dh] with R = S * group: rows of one sentence are contiguous and
        share the sentence's cross K/V (beams), cross_mask [S,1,1,L].
        """
        for n in range(self.config["decoder_layers"]):
            p = f"decoder.layers.{n}"
            cache = caches[n] if caches is not None else None

            def self_attn(h, p=p, cache=cache):
                q = self.query(p + ".self_attn", h)
                k = self.project(p + ".self_attn", "k_proj", h)
                v = self.project(p + ".self_attn", "v_proj", h)
                if cache is not None:
                    if "k" in cache:
                        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
                    cache["k"], cache["v"] = k, v
                return self.attn_out(p + ".self_attn", attend(q, k, v, self_mask, self.recorded("decoder")))

            def cross_attn(h, p=p, n=n):
                q = self.query(p + ".cross_attn", h)                  # [R, H, T, dh]
                k, v = cross[n]                                       # [S, H, L, dh]
                if group == 1:
                    return self.attn_out(p + ".cross_attn", attend(q, k, v, cross_mask, self.recorded("cross")))
                # beams of one sentence as a query sequence: [S*g, H, 1, dh] -> [S, H, g, dh]
                r, hh, _, dh = q.shape
                qg = q.view(r // group, group, hh, dh).transpose(1, 2)
                out = attend(qg, k, v, cross_mask)                    # [S, H, g, dh]
                return self.attn_out(p + ".cross_attn", out.transpose(1, 2).reshape(r, hh, 1, dh))

            x = self.sublayer(p + ".self_attn_norm", x, self_attn)
            x = self.sublayer(p + ".cross_attn_norm", x, cross_attn)
            x = self.sublayer(p + ".ffn_norm", x, lambda h, p=p: self.ffn(p, h))
        if self.config["final_norm"]:
            x = self.norm("decoder.final_norm", x)
        return x

    def logits(self, h):
        return linear(h, self.out_weight, self.out_bias)

    def decode_full(self, tgt_in, enc_out, enc_mask):
        """Teacher-forced decoder, no cache: tgt_in [B, T] (tgt_in[:,0] = decoder start) -> logits [B, T, V]."""
        x = self.embed(self.tgt_embed, self.dec_pos, tgt_in)
        h = self.decoder_layers(x, None, causal_mask(tgt_in.shape[1]), self.cross_kv(enc_out), enc_mask)
        return self.logits(h)

    def forward(self, src, lengths, tgt_in):
        enc, mask = self.encode(src, lengths)
        return self.decode_full(tgt_in, enc, mask)


# ----------------------------------------------------------------------------------------------
# Decoder steps (the Python twin of core::DecoderStep): rows are hypotheses, the search owns them.

class CachedDecoder:
    """Incremental decoding: self-attention K/V cached per row, cross-attention K/V computed once."""

    def __init__(self, model, enc_out, enc_mask):
        self.model, self.enc_mask = model, enc_mask
        self.cross_all = model.cross_kv(enc_out)      # per layer (k, v) [N, H, L, dh]
        self.caches = None
        self.active_key, self.cross, self.cross_mask = None, None, None

    def start(self, n_sentences):
        self.caches = [{} for _ in range(self.model.config["decoder_layers"])]
        self.active_key = None

    def select_rows(self, src_rows):
        idx = torch.as_tensor(src_rows, dtype=torch.long)
        for cache in self.caches:
            if "k" in cache:
                cache["k"], cache["v"] = cache["k"].index_select(0, idx), cache["v"].index_select(0, idx)

    def _cross_for(self, sentence_of_row):
        """Cross K/V for the rows: grouped per sentence when every sentence has the same number of
        contiguous rows (beam search), else one copy per row."""
        r = len(sentence_of_row)
        sents = sorted(set(sentence_of_row), key=sentence_of_row.index)
        group = r // len(sents)
        grouped = group * len(sents) == r and all(
            sentence_of_row[i] == sents[i // group] for i in range(r))
        key = (tuple(sents), group) if grouped else tuple(sentence_of_row)
        if key != self.active_key:
            gather = sents if grouped else list(sentence_of_row)
            idx = torch.as_tensor(gather, dtype=torch.long)
            self.cross = [(k.index_select(0, idx), v.index_select(0, idx)) for k, v in self.cross_all]
            self.cross_mask = self.enc_mask.index_select(0, idx)
            self.active_key = key
            self.group = group if grouped else 1
        return self.cross, self.cross_mask, self.group

    def step(self, tokens, sentence_of_row, position):
        """tokens [R] fed at decoder `position` -> logits [R, V]."""
        m = self.model
        x = m.embed(m.tgt_embed, m.dec_pos, torch.as_tensor(tokens, dtype=torch.long)[:, None], position)
        cross, cross_mask, group = self._cross_for(list(sentence_of_row))
        h = m.decoder_layers(x, self.caches, None, cross, cross_mask, group)
        return m.logits(h[:, 0])


class RecomputeDecoder:
    """No cache: every step re-runs the whole prefix (used to check CachedDecoder)."""

    def __init__(self, model, enc_out, enc_mask):
        self.model, self.enc_out, self.enc_mask = model, enc_out, enc_mask
        self.history = None

    def start(self, n_sentences):
        self.history = None

    def select_rows(self, src_rows):
        self.history = self.history[torch.as_tensor(src_rows, dtype=torch.long)]

    def step(self, tokens, sentence_of_row, position):
        col = torch.as_tensor(tokens, dtype=torch.long)[:, None]
        self.history = col if self.history is None else torch.cat([self.history, col], dim=1)
        assert self.history.shape[1] == position + 1
        idx = torch.as_tensor(list(sentence_of_row), dtype=torch.long)
        logits = self.model.decode_full(self.history, self.enc_out[idx], self.enc_mask[idx])
        return logits[:, -1]
