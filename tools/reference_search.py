"""Greedy and beam search of the reference (tools/reference.py), following Hugging Face `generate`, or
marian-decoder for native Marian models: see SearchOptions, beam_search and marian_beam_search for the
exact rules.
"""
import math
from dataclasses import dataclass, field

import numpy as np
import torch

NEG_INF = float("-inf")


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
    beam_rules: str = "hugging_face"   # or "marian": marian-decoder's beam search (marian_beam_search)


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


def expand(decoder, feed, row_sent, t, cum, max_lengths, opts):
    """One decoder step of a beam search: every row's candidates, running score + log-probs [R, V] in
    float32 (EOS forced on a sentence's last allowed step)."""
    logits = decoder.step(feed, row_sent, t)
    forced = torch.tensor([t + 1 >= max_lengths[s] for s in row_sent])
    return cum[:, None] + step_logprobs(logits, opts, forced)


def continue_rows(decoder, new_src, new_tokens, new_cum):
    """Keeps the decoder rows the next step continues (new_src: each one's row now); returns their running
    scores and the tokens to feed."""
    if new_src:
        decoder.select_rows(new_src)
    return torch.tensor(new_cum, dtype=torch.float32), [toks[-1] for toks in new_tokens]


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
        cand = expand(decoder, feed, row_sent, t, cum, max_lengths, opts)
        vocab = cand.shape[1]
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
        row_sent, row_tokens = new_sent, new_tokens
        cum, feed = continue_rows(decoder, new_src, new_tokens, new_cum)
        nb = k
        t += 1
    return results


def marian_beam_search(decoder, max_lengths, opts):
    """marian-decoder's beam search (translator/beam_search.cpp), each sentence on its own.

    A sentence's width starts at K. Per step it takes the top `width` candidates of its rows (value desc,
    lower index first) and keeps all of them: an EOS one finishes (score cum / len^lp in float32, len with
    the EOS), the others run, and the width becomes their number. It is done when none runs. On its max
    length the EOS is forced, and a hypothesis ended by it is scored by its length without it (Marian ends
    hypotheses at its limit, one step earlier, without an EOS).
    """
    n = len(max_lengths)
    decoder.start(n)
    width = [opts.beam_size] * n
    finished = [[] for _ in range(n)]               # (score, tokens), in the order they finished
    results = [None] * n
    row_sent = list(range(n))
    row_tokens = [[] for _ in range(n)]
    cum = torch.zeros(n, dtype=torch.float32)
    feed = [opts.start_id] * n
    t = 0
    while row_sent:
        cand = expand(decoder, feed, row_sent, t, cum, max_lengths, opts)
        vocab = cand.shape[1]
        cur_len = t + 1
        new_src, new_tokens, new_cum, new_sent = [], [], [], []
        r0 = 0
        while r0 < len(row_sent):
            s = row_sent[r0]
            rows = row_sent.count(s)
            last = cur_len >= max_lengths[s]
            idx, vals = top_candidates(cand[r0:r0 + rows].reshape(-1), width[s])
            mine = []                               # (src row, tokens, cum)
            for i, v in zip(idx, vals):
                beam, tok = divmod(i, vocab)
                if tok == opts.eos_id:
                    length = cur_len - 1 if last else cur_len
                    score = np.float32(v) / np.power(np.float32(length), np.float32(opts.length_penalty))
                    finished[s].append((float(score), row_tokens[r0 + beam]))
                else:
                    mine.append((r0 + beam, row_tokens[r0 + beam] + [tok], v))
            width[s] = len(mine)
            if last or not mine:
                kept = sorted((h for h in finished[s] if math.isfinite(h[0])), key=lambda h: -h[0])
                results[s] = [Hypothesis(tokens, score) for score, tokens in kept[:opts.n_best]]
            else:
                for src, toks, v in mine:
                    new_src.append(src)
                    new_tokens.append(toks)
                    new_cum.append(v)
                    new_sent.append(s)
            r0 += rows
        row_sent, row_tokens = new_sent, new_tokens
        cum, feed = continue_rows(decoder, new_src, new_tokens, new_cum)
        t += 1
    return results


def search(decoder, max_lengths, opts):
    if opts.beam_size <= 1:
        return greedy_search(decoder, max_lengths, opts)
    if opts.beam_rules == "marian":
        return marian_beam_search(decoder, max_lengths, opts)
    return beam_search(decoder, max_lengths, opts)
