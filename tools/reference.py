#!/usr/bin/python3
"""PyTorch reference for the nmt engine: the Transformer of docs/checkpoint.md, greedy and beam search.

Written plainly (explicit q/k/v matmuls, additive masks, float32 everywhere) so that it can be read next
to the C++ engine. Every config option of checkpoint format v1 is supported. Search follows Hugging Face
`generate` (see SearchOptions / beam_search below for the exact rules).

  /usr/bin/python3 tools/reference.py MODEL_DIR [--beam N] [--length-penalty X] < in.txt > out.txt
"""
import argparse
import json
import math
import os
import sys
from dataclasses import dataclass, field

import numpy as np
import sentencepiece as spm
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


# ----------------------------------------------------------------------------------------------
# Search

@dataclass
class SearchOptions:
    beam_size: int = 1
    n_best: int = 1
    length_penalty: float = 1.0        # finished score = sum_logprobs / len^length_penalty
    renormalize: bool = True           # log_softmax again after banning ids
    eos_id: int = 0
    start_id: int = 0
    banned: list = field(default_factory=list)            # -inf after log_softmax
    # Reference-only (not in checkpoint v1): ids removed *before* log_softmax, so they take no
    # probability mass. Native Marian has no pad entry in its vocabulary: pad is listed here.
    softmax_excluded: list = field(default_factory=list)


@dataclass
class Hypothesis:
    tokens: list          # generated ids, EOS excluded
    score: float          # sum_logprobs / len^lp, len = generated tokens incl. EOS


def search_options(meta, beam_size=None, length_penalty=None, n_best=1):
    """SearchOptions from a checkpoint's tokens + decoding defaults (overrides when not None)."""
    tok, dec = meta["tokens"], meta["decoding"]
    banned = [tok["pad"], tok["decoder_start"]] + ([tok["unk"]] if dec["ban_unk"] else [])
    banned = sorted(set(banned))
    return SearchOptions(beam_size=beam_size or dec["beam_size"], n_best=n_best,
                         length_penalty=dec["length_penalty"] if length_penalty is None else length_penalty,
                         renormalize=dec["renormalize"], eos_id=tok["eos"], start_id=tok["decoder_start"],
                         banned=banned)


def max_generated(n_src, decoding, max_positions):
    """Generated tokens allowed (incl. EOS) for a source of n_src ids (incl. its EOS):
    min(max_length, floor(a * n_src + b), max_positions), at least 1. Computed in double precision."""
    m = math.floor(decoding["max_length_a"] * n_src + decoding["max_length_b"])
    return max(1, min(decoding["max_length"], m, max_positions))


def step_logprobs(logits, opts, forced):
    """logits [R, V] -> processed log-probs [R, V]; forced [R] bool: rows whose step must emit EOS."""
    x = logits.float()
    if opts.softmax_excluded:
        x = x.clone()
        x[:, opts.softmax_excluded] = NEG_INF
    lp = torch.log_softmax(x, dim=-1)
    if opts.banned:
        lp[:, opts.banned] = NEG_INF
    if opts.renormalize:
        lp = torch.log_softmax(lp, dim=-1)
    if forced.any():
        lp[forced] = NEG_INF
        lp[forced, opts.eos_id] = 0.0
    return lp


def greedy_search(decoder, max_lengths, opts):
    """Argmax (first maximum wins) until EOS; EOS forced on the last allowed step."""
    n = len(max_lengths)
    decoder.start(n)
    active = list(range(n))                     # sentence of each row
    tokens = [[] for _ in range(n)]
    sums = torch.zeros(n, dtype=torch.float32)   # summed in float32, like the beam's running scores
    feed = [opts.start_id] * n
    results = [None] * n
    t = 0
    while active:
        logits = decoder.step(feed, active, t)
        forced = torch.tensor([t + 1 >= max_lengths[s] for s in active])
        lp = step_logprobs(logits, opts, forced)
        best = lp.argmax(dim=-1)
        sums = sums + lp.gather(1, best[:, None])[:, 0]
        keep = []
        for r, s in enumerate(active):
            tok = int(best[r])
            if tok == opts.eos_id:
                results[s] = [Hypothesis(tokens[s], float(sums[r]) / (t + 1) ** opts.length_penalty)]
            else:
                tokens[s].append(tok)
                keep.append(r)
        if keep and len(keep) != len(active):
            decoder.select_rows(keep)
        active = [active[r] for r in keep]
        sums = sums[keep]
        feed = [int(best[r]) for r in keep]
        t += 1
    return results


class FinishedHypotheses:
    """Hugging Face BeamHypotheses: keeps the best `k` finished hypotheses."""

    def __init__(self, k, length_penalty):
        self.k, self.lp = k, length_penalty
        self.beams = []            # (score, tokens)
        self.worst = 1e9

    def add(self, tokens, cum, length):
        score = cum / length ** self.lp
        if len(self.beams) < self.k or score > self.worst:
            self.beams.append((score, tokens))
            if len(self.beams) > self.k:
                ranked = sorted((s, i) for i, (s, _) in enumerate(self.beams))
                del self.beams[ranked[0][1]]
                self.worst = ranked[1][0]
            else:
                self.worst = min(score, self.worst)

    def is_done(self, best_cum, cur_len):
        if len(self.beams) < self.k:
            return False
        return self.worst >= best_cum / cur_len ** self.lp

    def best(self, n):
        ranked = sorted(self.beams, key=lambda b: b[0])   # stable; the last of equal scores wins, as in HF
        return [Hypothesis(tokens, score) for score, tokens in
                (ranked.pop() for _ in range(min(n, len(ranked))))]


def top_candidates(flat, n):
    """Top n of a 1-D float tensor as (index, value) lists, by value desc, lower index first on ties."""
    n = min(n, flat.numel())
    vals, _ = torch.topk(flat, n)
    boundary = vals[-1]
    greater = (flat > boundary).nonzero().flatten()
    equal = (flat == boundary).nonzero().flatten()[: n - greater.numel()]
    chosen = torch.cat([greater, equal]).tolist()
    values = flat[chosen].tolist()
    pairs = sorted(zip(chosen, values), key=lambda p: (-p[1], p[0]))
    return [p[0] for p in pairs], [p[1] for p in pairs]


def top_candidates_rows(cand, n):
    """top_candidates for every row of cand [S, C] at once (fast path: one topk for all sentences); a row
    whose n-th value ties with an unselected one is redone exactly."""
    n = min(n, cand.shape[1])
    vals, idx = torch.topk(cand, n, dim=1)
    ties = ((cand >= vals[:, -1:]).sum(dim=1) > n).tolist()
    out = []
    for r, (iv, vv) in enumerate(zip(idx.tolist(), vals.tolist())):
        if ties[r]:
            out.append(top_candidates(cand[r], n))
        else:
            pairs = sorted(zip(iv, vv), key=lambda p: (-p[1], p[0]))
            out.append(([p[0] for p in pairs], [p[1] for p in pairs]))
    return out


def beam_search(decoder, max_lengths, opts):
    """Hugging Face beam search (num_beams K, early_stopping False), one start beam per sentence.

    Per step and sentence: candidates = running score + log-probs, flattened beam-major [beams*V];
    the top 2K (value desc, lower index first) are walked in rank order: EOS ranked < K -> finished
    (score cum / cur_len^lp), EOS ranked >= K ignored, others continue until K running beams.
    A sentence is done when K are finished and max(top-2K cum) / cur_len^lp <= the worst finished
    score, or when its max length is reached (then unfinished running beams are added, as HF's finalize).
    """
    k = opts.beam_size
    n = len(max_lengths)
    decoder.start(n)
    finished = [FinishedHypotheses(k, opts.length_penalty) for _ in range(n)]
    results = [None] * n
    row_sent = list(range(n))                       # sentence of each row (rows of a sentence contiguous)
    row_tokens = [[] for _ in range(n)]             # generated ids so far
    cum = torch.zeros(n, dtype=torch.float32)       # running scores
    feed = [opts.start_id] * n
    nb = 1                                          # rows per active sentence
    t = 0
    while row_sent:
        logits = decoder.step(feed, row_sent, t)
        forced = torch.tensor([t + 1 >= max_lengths[s] for s in row_sent])
        lp = step_logprobs(logits, opts, forced)
        vocab = lp.shape[1]
        cand = cum[:, None] + lp                    # [R, V] float32
        cur_len = t + 1
        new_src, new_tokens, new_cum, new_sent = [], [], [], []
        sents = row_sent[::nb]                      # every active sentence has nb rows (1 at t=0, else K)
        tops = top_candidates_rows(cand.view(len(sents), nb * vocab), 2 * k)
        for j, s in enumerate(sents):
            r0 = j * nb
            idx, vals = tops[j]
            mine = []                               # (src row, tokens, cum)
            for rank, (i, v) in enumerate(zip(idx, vals)):
                beam, tok = divmod(i, vocab)
                if tok == opts.eos_id:
                    if rank < k and math.isfinite(v):
                        finished[s].add(row_tokens[r0 + beam], v, cur_len)
                else:
                    mine.append((r0 + beam, row_tokens[r0 + beam] + [tok], v))
                if len(mine) == k:
                    break
            done = finished[s].is_done(max(vals), cur_len)
            assert len(mine) == k or done, "fewer than K continuing candidates (vocabulary too small?)"
            if not done and cur_len >= max_lengths[s]:
                for _, toks, v in mine:             # HF finalize: running beams join (never when -inf)
                    if math.isfinite(v):
                        finished[s].add(toks, v, len(toks))
                done = True
            if done:
                results[s] = finished[s].best(opts.n_best)
            else:
                for src, toks, v in mine:
                    new_src.append(src)
                    new_tokens.append(toks)
                    new_cum.append(v)
                    new_sent.append(s)
        if new_src:
            decoder.select_rows(new_src)
        row_sent, row_tokens = new_sent, new_tokens
        cum = torch.tensor(new_cum, dtype=torch.float32)
        feed = [toks[-1] for toks in new_tokens]
        nb = k
        t += 1
    return results


def search(decoder, max_lengths, opts):
    if opts.beam_size <= 1:
        return greedy_search(decoder, max_lengths, opts)
    return beam_search(decoder, max_lengths, opts)


# ----------------------------------------------------------------------------------------------
# Text <-> ids

class Tokenizer:
    """SentencePiece segmentation; ids from the vocabulary JSON when the checkpoint names one."""

    def __init__(self, model_dir, meta):
        tk, self.tok = meta["tokenizer"], meta["tokens"]
        self.add_eos = tk["add_eos"]
        self.src_sp = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, tk["source_spm"]))
        self.tgt_sp = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, tk["target_spm"]))
        self.src_vocab = self._load_vocab(model_dir, tk["source_vocab"])
        tgt_vocab = self._load_vocab(model_dir, tk["target_vocab"])
        self.tgt_pieces = {i: p for p, i in tgt_vocab.items()} if tgt_vocab is not None else None

    @staticmethod
    def _load_vocab(model_dir, name):
        if name is None:
            return None
        with open(os.path.join(model_dir, name), encoding="utf-8") as f:
            return json.load(f)

    def encode(self, text):
        """Source ids (+ EOS when add_eos). With a vocab: pieces -> ids via the JSON, missing -> unk."""
        if self.src_vocab is not None:
            pieces = self.src_sp.encode(text, out_type=str)
            ids = [self.src_vocab.get(p, self.tok["unk"]) for p in pieces]
        else:
            ids = self.src_sp.encode(text)
        return ids + ([self.tok["eos"]] if self.add_eos else [])

    def decode(self, ids):
        """Drop eos/unk/pad/decoder_start; ids -> pieces (inverted vocab) or spm ids; decode with the
        target spm; leftover U+2581 (unknown pieces come back verbatim) -> space; strip."""
        drop = {self.tok["eos"], self.tok["unk"], self.tok["pad"], self.tok["decoder_start"]}
        ids = [i for i in ids if i not in drop]
        if self.tgt_pieces is not None:
            text = self.tgt_sp.decode_pieces([self.tgt_pieces[i] for i in ids if i in self.tgt_pieces])
        else:
            text = self.tgt_sp.decode(ids)
        return text.replace("\u2581", " ").strip()


# ----------------------------------------------------------------------------------------------
# Batched translation

def encode_batch(model, sources):
    """sources: list of id lists -> (enc_out [B, L, d], enc_mask [B,1,1,L])."""
    longest = max(len(s) for s in sources)
    src = torch.full((len(sources), longest), model.tokens["pad"], dtype=torch.long)
    for i, s in enumerate(sources):
        src[i, : len(s)] = torch.tensor(s, dtype=torch.long)
    return model.encode(src, [len(s) for s in sources])


def translate_ids(model, sources, opts, decoding, batch_size=16, cached=True, max_lengths=None):
    """Translate id lists (each incl. EOS); returns per source a list of Hypothesis (best first).
    Batches are sorted by length; max_lengths (per source) defaults to max_generated() from `decoding`."""
    results = [None] * len(sources)
    order = sorted(range(len(sources)), key=lambda i: -len(sources[i]))
    if max_lengths is None:
        max_lengths = [max_generated(len(s), decoding, model.config["max_positions"]) for s in sources]
    for b in range(0, len(order), batch_size):
        idx = order[b: b + batch_size]
        batch = [sources[i] for i in idx]
        with torch.inference_mode():
            enc, mask = encode_batch(model, batch)
            dec = (CachedDecoder if cached else RecomputeDecoder)(model, enc, mask)
            hyps = search(dec, [max_lengths[i] for i in idx], opts)
        for i, h in zip(idx, hyps):
            results[i] = h
    return results


def main():
    ap = argparse.ArgumentParser(description="Reference translation with the PyTorch model.")
    ap.add_argument("model_dir")
    ap.add_argument("--beam", type=int, default=None, help="beam size (default: the model's)")
    ap.add_argument("--length-penalty", type=float, default=None)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--no-cache", action="store_true", help="recompute the whole prefix each step")
    args = ap.parse_args()
    torch.set_num_threads(1)

    model, meta = Model.load(args.model_dir)
    tokenizer = Tokenizer(args.model_dir, meta)
    opts = search_options(meta, args.beam, args.length_penalty)
    lines = [line.rstrip("\n") for line in sys.stdin]
    todo = [i for i, line in enumerate(lines) if line.strip()]
    hyps = translate_ids(model, [tokenizer.encode(lines[i]) for i in todo], opts, meta["decoding"],
                         args.batch_size, cached=not args.no_cache)
    out = [""] * len(lines)
    for i, h in zip(todo, hyps):
        out[i] = tokenizer.decode(h[0].tokens)
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
