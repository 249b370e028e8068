#!/usr/bin/python3
"""Train the bundled English->German model on Multi30k.

Reproducible recipe (fixed seed): joint SentencePiece vocabulary, a small post-norm
Transformer built from PyTorch's fused nn.Transformer layers, label smoothing,
Adam with warmup + inverse-sqrt decay (optionally cooled down linearly to 0),
token-based batches, one checkpoint per epoch, and averaging of the last epochs'
weights at the end.

  /usr/bin/python3 tools/train.py --data ../shared/data/multi30k --out build/train

The result (build/train/avg.pt + spm.model) is converted to our checkpoint
format by tools/export.py.
"""
import argparse
import contextlib
import gzip
import json
import math
import os
import random
import sys
import time

import sentencepiece as spm
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, UNK, BOS, EOS = 0, 1, 2, 3


def read_lines(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def sinusoids_interleaved(n_positions, d):
    """The paper's table: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...)."""
    pos = torch.arange(n_positions, dtype=torch.float64).unsqueeze(1)
    i = torch.arange(0, d, 2, dtype=torch.float64)
    angle = pos / torch.pow(10000.0, i / d)
    pe = torch.zeros(n_positions, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe.float()


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
        pad = src.eq(PAD)
        return self.encoder(self.embed_tokens(src), src_key_padding_mask=pad), pad

    def decode(self, tgt_in, memory, src_pad):
        t = tgt_in.size(1)
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        h = self.decoder(self.embed_tokens(tgt_in), memory, tgt_mask=causal,
                         tgt_key_padding_mask=tgt_in.eq(PAD), memory_key_padding_mask=src_pad)
        return h @ self.embed.weight.t()

    def forward(self, src, tgt_in):
        memory, src_pad = self.encode(src)
        return self.decode(tgt_in, memory, src_pad)


def make_batches(pairs, max_tokens, rng):
    """Token-based batches of similar-length pairs, in shuffled order."""
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][1]) + rng.random(), len(pairs[i][0])))
    batches, cur, longest = [], [], 0
    for i in order:
        n = max(len(pairs[i][0]), len(pairs[i][1]) + 1)
        if cur and max(longest, n) * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, n)
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches


def collate(pairs, idx):
    src_len = max(len(pairs[i][0]) for i in idx)
    tgt_len = max(len(pairs[i][1]) for i in idx) + 1
    src = torch.full((len(idx), src_len), PAD, dtype=torch.long)
    tin = torch.full((len(idx), tgt_len), PAD, dtype=torch.long)
    tout = torch.full((len(idx), tgt_len), PAD, dtype=torch.long)
    for r, i in enumerate(idx):
        s, t = pairs[i]
        src[r, : len(s)] = torch.tensor(s)
        tin[r, : len(t) + 1] = torch.tensor([BOS] + t)
        tout[r, : len(t) + 1] = torch.tensor(t + [EOS])
    return src, tin, tout


@torch.no_grad()
def greedy(model, src, max_len):
    memory, src_pad = model.encode(src)
    ys = torch.full((src.size(0), 1), BOS, dtype=torch.long)
    done = torch.zeros(src.size(0), dtype=torch.bool)
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
        loss += F.cross_entropy(lg.reshape(-1, lg.size(-1)), tout.reshape(-1), ignore_index=PAD,
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data/multi30k")
    ap.add_argument("--out", default="build/train")
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--enc-layers", type=int, default=3)
    ap.add_argument("--dec-layers", type=int, default=3)
    ap.add_argument("--ffn", type=int, default=1024)
    ap.add_argument("--activation", default="relu")
    ap.add_argument("--dropout", type=float, default=0.3)
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--max-tokens", type=int, default=2500)
    ap.add_argument("--weight-decay", type=float, default=1e-4)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--time-budget-min", type=float, default=100.0, help="stop after the epoch that crosses it")
    ap.add_argument("--stop-after", type=int, default=0,
                    help="stop after this epoch (0: run --epochs); the lr schedule still plans for --epochs")
    ap.add_argument("--average", type=int, default=8, help="average the last N epochs' weights")
    ap.add_argument("--bleu-every", type=int, default=3, help="greedy val BLEU every N epochs (0: never)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=0, help="stop after N updates (for timing probes)")
    ap.add_argument("--bf16", action="store_true",
                    help="bfloat16 autocast for forward/backward (fp32 master weights; AMX/AVX512-BF16 CPUs)")
    ap.add_argument("--cooldown", type=float, default=0.0,
                    help="scale the lr linearly down to 0 over this last fraction of the planned updates "
                         "(--epochs x batches per epoch); 0: plain inverse-sqrt decay")
    ap.add_argument("--ema", type=float, default=0.0,
                    help="also keep an exponential moving average of the weights with this decay (0: off)")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(args.data)), "..", "tools"))
    from bleu import corpus_bleu  # ../shared/tools/bleu.py, sacreBLEU defaults

    d = args.data
    train_en, train_de = read_lines(f"{d}/train.en.gz"), read_lines(f"{d}/train.de.gz")
    val_en, val_de = read_lines(f"{d}/val.en.gz"), read_lines(f"{d}/val.de.gz")

    spm_prefix = os.path.join(args.out, "spm")
    if not os.path.exists(spm_prefix + ".model"):
        text = os.path.join(args.out, "spm_train.txt")
        with open(text, "w", encoding="utf-8") as f:
            f.write("\n".join(train_en + train_de) + "\n")
        spm.SentencePieceTrainer.train(
            input=text, model_prefix=spm_prefix, vocab_size=args.vocab, model_type="unigram",
            character_coverage=1.0, pad_id=PAD, unk_id=UNK, bos_id=BOS, eos_id=EOS,
            num_threads=1, shuffle_input_sentence=False, minloglevel=2)
        os.remove(text)
    sp = spm.SentencePieceProcessor(model_file=spm_prefix + ".model")

    def enc(lines):
        return [ids + [EOS] for ids in sp.encode(lines)]

    pairs = list(zip(enc(train_en), sp.encode(train_de)))
    val_src = enc(val_en)
    val_pairs = list(zip(val_src, sp.encode(val_de)))

    config = dict(vocab=sp.get_piece_size(), d_model=args.d_model, heads=args.heads,
                  enc_layers=args.enc_layers, dec_layers=args.dec_layers, ffn=args.ffn,
                  activation=args.activation)
    model = TrainModel(config["vocab"], args.d_model, args.heads, args.enc_layers, args.dec_layers,
                       args.ffn, args.dropout, args.activation)
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9,
                            weight_decay=args.weight_decay)
    # Batch counts barely vary between epochs (same pairs, same token budget), so one epoch's count
    # plans the run's length for the cooldown.
    planned_steps = args.epochs * len(make_batches(pairs, args.max_tokens, random.Random(args.seed)))
    cooldown_steps = args.cooldown * planned_steps

    def lr_scale(s):
        scale = min((s + 1) / args.warmup, math.sqrt(args.warmup / (s + 1)))
        if cooldown_steps > 0:
            scale *= min(1.0, max(0.0, planned_steps - s) / cooldown_steps)
        return scale

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_scale)
    log = open(os.path.join(args.out, "train.log"), "a")

    def say(msg):
        print(msg, flush=True)
        log.write(msg + "\n")
        log.flush()

    say(f"config {json.dumps(config)} params {n_params} args {json.dumps(vars(args))}")
    rng = random.Random(args.seed)
    # The EMA copy of the parameters (buffers are fixed tables); saved beside each epoch's weights.
    ema = [p.detach().clone() for p in model.parameters()] if args.ema > 0 else None
    start, step = time.time(), 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        tot_loss = tot_tok = 0.0
        t0 = time.time()
        for idx in make_batches(pairs, args.max_tokens, rng):
            src, tin, tout = collate(pairs, idx)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                logits = model(src, tin)
            loss = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), tout.reshape(-1),
                                   ignore_index=PAD, label_smoothing=args.label_smoothing, reduction="sum")
            ntok = tout.ne(PAD).sum().item()
            opt.zero_grad(set_to_none=True)
            (loss / ntok).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            if ema is not None:
                with torch.no_grad():
                    for e, p in zip(ema, model.parameters()):
                        e.lerp_(p, 1.0 - args.ema)
            tot_loss += loss.item()
            tot_tok += ntok
            if step % 50 == 0:
                say(f"epoch {epoch} step {step} loss {tot_loss / tot_tok:.3f} "
                    f"{tot_tok / (time.time() - t0):.0f} tgt tok/s lr {sched.get_last_lr()[0]:.2e}")
            if args.max_steps and step >= args.max_steps:
                say(f"probe: {step} steps in {time.time() - start:.1f}s")
                return
        model.eval()
        msg = (f"END epoch {epoch} step {step} train_loss {tot_loss / tot_tok:.3f} "
               f"val_nll {val_nll(model, val_pairs):.3f} "
               f"epoch_min {(time.time() - t0) / 60:.1f} total_min {(time.time() - start) / 60:.1f}")
        if args.bleu_every and epoch % args.bleu_every == 0:
            msg += f" val_bleu_greedy {val_bleu(model, sp, val_src, val_de, corpus_bleu):.2f}"
        torch.save({"config": config, "model": model.state_dict(), "epoch": epoch},
                   os.path.join(args.out, f"epoch{epoch}.pt"))
        if ema is not None:
            with swapped_in(model, ema):
                msg += f" ema_val_nll {val_nll(model, val_pairs):.3f}"
                if args.bleu_every and epoch % args.bleu_every == 0:
                    msg += f" ema_val_bleu_greedy {val_bleu(model, sp, val_src, val_de, corpus_bleu):.2f}"
                torch.save({"config": config, "model": model.state_dict(), "epoch": epoch, "ema": args.ema},
                           os.path.join(args.out, f"ema{epoch}.pt"))
        say(msg)
        if (time.time() - start) / 60 >= args.time_budget_min or epoch == args.stop_after:
            break

    last = sorted(int(f[5:-3]) for f in os.listdir(args.out) if f.startswith("epoch") and f.endswith(".pt"))
    chosen = last[-args.average:]
    avg = None
    for e in chosen:
        sd = torch.load(os.path.join(args.out, f"epoch{e}.pt"))["model"]
        avg = {k: v.double().clone() for k, v in sd.items()} if avg is None else \
            {k: avg[k] + sd[k].double() for k in avg}
    avg = {k: (v / len(chosen)).float() for k, v in avg.items()}
    model.load_state_dict(avg)
    torch.save({"config": config, "model": avg, "epochs": chosen}, os.path.join(args.out, "avg.pt"))
    say(f"averaged epochs {chosen}: val_bleu_greedy {val_bleu(model, sp, val_src, val_de, corpus_bleu):.2f} "
        f"total_min {(time.time() - start) / 60:.1f}")


if __name__ == "__main__":
    main()
