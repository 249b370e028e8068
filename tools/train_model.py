"""The Transformer tools/train.py trains, its greedy decoder and its validation loss.

TrainModel is PyTorch's post-norm nn.Transformer layers with one embedding shared by source, target and
output; tools/export.py maps its state dict to our checkpoint format.
"""
import contextlib
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from checkpoint import sinusoid_table
from train_data import PAD, BOS, EOS, collate


def sinusoids_interleaved(n_positions, d):
    """The paper's table, PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...), as the engine computes it
    (tools/checkpoint.py)."""
    return torch.from_numpy(sinusoid_table("sinusoidal-interleaved", n_positions, d))


class TrainModel(nn.Module):
    """Post-norm encoder-decoder; shared source/target/output embedding."""

    def __init__(self, vocab, d, heads, enc_layers, dec_layers, ffn, dropout, act):
        super().__init__()
        self.d = d
        self.embed = nn.Embedding(vocab, d, padding_idx=PAD)
        nn.init.normal_(self.embed.weight, 0.0, d ** -0.5)
        with torch.no_grad():
            self.embed.weight[PAD].zero_()
        enc = nn.TransformerEncoderLayer(d, heads, ffn, dropout, activation=act,
                                         batch_first=True, norm_first=False)
        dec = nn.TransformerDecoderLayer(d, heads, ffn, dropout, activation=act,
                                         batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(enc, enc_layers, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(dec, dec_layers)
        self.drop = nn.Dropout(dropout)
        self.register_buffer("pe", sinusoids_interleaved(1024, d), persistent=False)

    def embed_tokens(self, ids):
        return self.drop(self.embed(ids) * math.sqrt(self.d) + self.pe[: ids.size(1)])

    def encode(self, src):
        src = src.to(self.embed.weight.device)
        pad = src.eq(PAD)
        return self.encoder(self.embed_tokens(src), src_key_padding_mask=pad), pad

    def decode(self, tgt_in, memory, src_pad):
        tgt_in = tgt_in.to(memory.device)
        t = tgt_in.size(1)
        causal = torch.triu(torch.full((t, t), float("-inf"), device=memory.device), diagonal=1)
        h = self.decoder(self.embed_tokens(tgt_in), memory, tgt_mask=causal,
                         tgt_key_padding_mask=tgt_in.eq(PAD), memory_key_padding_mask=src_pad)
        return h @ self.embed.weight.t()

    def forward(self, src, tgt_in):
        memory, src_pad = self.encode(src)
        return self.decode(tgt_in, memory, src_pad)


def backward_in_parts(model, src, tin, tout, parts, label_smoothing, bf16):
    """Backpropagate the batch's mean token loss in `parts` slices of its rows, whose gradients add up to the
    whole batch's, so that peak memory is one slice's. Returns (the summed token loss, the target tokens)."""
    device = model.embed.weight.device
    ntok = tout.ne(PAD).sum().item()
    rows, total = src.size(0), 0.0
    for i in range(parts):
        part = slice(i * rows // parts, (i + 1) * rows // parts)
        if part.start == part.stop:
            continue
        s, ti, to = (t[part].to(device, non_blocking=True) for t in (src, tin, tout))
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            logits = model(s, ti)
        loss = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), to.reshape(-1), ignore_index=PAD,
                               label_smoothing=label_smoothing, reduction="sum")
        (loss / ntok).backward()
        total += loss.item()
    return total, ntok


@torch.no_grad()
def greedy(model, src, max_len):
    memory, src_pad = model.encode(src)
    ys = torch.full((src.size(0), 1), BOS, dtype=torch.long, device=memory.device)
    done = torch.zeros(src.size(0), dtype=torch.bool, device=memory.device)
    for _ in range(max_len):
        logits = model.decode(ys, memory, src_pad)[:, -1]
        logits[:, PAD] = float("-inf")
        nxt = logits.argmax(-1)
        nxt = torch.where(done, torch.full_like(nxt, PAD), nxt)
        ys = torch.cat([ys, nxt.unsqueeze(1)], 1)
        done |= nxt.eq(EOS)
        if done.all():
            break
    out = []
    for row in ys[:, 1:].tolist():
        row = row[: row.index(EOS)] if EOS in row else row
        out.append([t for t in row if t != PAD])
    return out


def translate_ids(model, srcs, batch=100):
    model.eval()
    hyps = [None] * len(srcs)
    order = sorted(range(len(srcs)), key=lambda i: len(srcs[i]))
    for b in range(0, len(order), batch):
        idx = order[b: b + batch]
        L = max(len(srcs[i]) for i in idx)
        src = torch.full((len(idx), L), PAD, dtype=torch.long)
        for r, i in enumerate(idx):
            src[r, : len(srcs[i])] = torch.tensor(srcs[i])
        for i, h in zip(idx, greedy(model, src, int(1.5 * L) + 10)):
            hyps[i] = h
    return hyps


@torch.no_grad()
def val_nll(model, val_pairs):
    """Mean per-token NLL on val (no label smoothing), in fp32."""
    loss = tokens = 0.0
    for b in range(0, len(val_pairs), 100):
        src, tin, tout = collate(val_pairs, list(range(b, min(b + 100, len(val_pairs)))))
        lg = model(src, tin)
        loss += F.cross_entropy(lg.reshape(-1, lg.size(-1)), tout.to(lg.device).reshape(-1), ignore_index=PAD,
                                reduction="sum").item()
        tokens += tout.ne(PAD).sum().item()
    return loss / tokens


@contextlib.contextmanager
def swapped_in(model, weights):
    """Temporarily give the model's parameters the values in weights (e.g. the EMA copy)."""
    saved = [p.detach().clone() for p in model.parameters()]
    with torch.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(w)
    try:
        yield
    finally:
        with torch.no_grad():
            for p, s in zip(model.parameters(), saved):
                p.copy_(s)


def val_bleu(model, sp, src_ids, refs, bleu):
    hyps = [sp.decode(h) for h in translate_ids(model, src_ids)]
    return bleu(hyps, refs)
