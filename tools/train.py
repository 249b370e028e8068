#!/usr/bin/python3
"""Train an English->German Transformer for nmt: the bundled Multi30k model or the general-domain one.

Reproducible recipe (fixed seed): joint SentencePiece vocabulary, a small post-norm Transformer built from
PyTorch's fused nn.Transformer layers, label smoothing, dropout, AdamW with warmup + inverse-sqrt decay
(optionally cooled down linearly to 0), token-based batches, one checkpoint per epoch, and averaging of the
last epochs' weights at the end.

  /usr/bin/python3 tools/train.py --data ../shared/data/multi30k --out build/train
  /usr/bin/python3 tools/train.py --corpus general --mix multi30k=1,tatoeba=2,news=1 --out build/train-general \
      --time-budget-min 120 --resume

--corpus general adds Tatoeba and WMT news (tools/train_data.py says which pairs are dev). A run stops at the
end of its --epochs (or --stop-after), at --max-steps, or mid-epoch when --time-budget-min is used up; it saves
its whole state (state.pt, tools/train_state.py) every --checkpoint-every-min minutes and when it stops, and
--resume continues from there with the same batches, dropout masks and lr. Exit status 75 means the budget
ran out before the planned run ended: run the same command again.

--steps N makes a run N updates long whatever its epoch count (the cooldown ends there); --steps-from-minutes M
plans that count from the run's own speed so that it ends after about M minutes, for a machine lent for a set
time, and logs it ("planned_steps N") for a rerun with --steps. --device cuda trains on a GPU: the same batches,
other dropout masks and rounding.

--init-from CHECKPOINT starts a second stage from an earlier run's weights and vocabulary (spm.model beside
the checkpoint) with a fresh optimizer and schedule: `make model` fine-tunes the general model this way.

The result (OUT/avg.pt + OUT/spm.model) is converted to our checkpoint format by tools/export.py.
"""
import argparse
import json
import math
import os
import random
import shutil
import sys
import time

import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_data import add_synthetic, collate, drop_judged, encode_pairs, epoch_pairs, judged_sentences, \
    load_corpus, make_batches, parse_weights, reversed_corpus, train_spm  # noqa: E402
from train_model import TrainModel, backward_in_parts, swapped_in, val_bleu, val_nll  # noqa: E402
from train_state import load_state, save_state  # noqa: E402

EXIT_BUDGET_USED = 75   # EX_TEMPFAIL: rerun with --resume to continue
# --steps-from-minutes times its updates from this share of the minutes (once every run sharing the machine is
# past its start-up) for this share more; its first plan comes at their sum.
SPEED_FROM, SPEED_OVER = 0.3, 0.1
PLAN_KNOWN_AT = SPEED_FROM + SPEED_OVER


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data/multi30k", help="the Multi30k folder")
    ap.add_argument("--corpus", choices=["multi30k", "general"], default="multi30k")
    ap.add_argument("--general-data", default=None,
                    help="the general-en-de folder (default: general-en-de beside --data)")
    ap.add_argument("--mix", default="multi30k=1,tatoeba=2,news=1",
                    help="per-source weights of an epoch (--corpus general), e.g. multi30k=1,tatoeba=2,news=1; "
                         "naming kd adds the teacher's translations from --extra-data")
    ap.add_argument("--extra-data", default=None,
                    help="the general-en-de-extra folder (default: general-en-de-extra beside --data)")
    ap.add_argument("--synthetic", action="append", default=[], metavar="NAME=PREFIX",
                    help="a training source of synthetic pairs, PREFIX.en.gz and PREFIX.de.gz (tools/synth_data.py); "
                         "--mix weighs it by NAME")
    ap.add_argument("--direction", choices=["en-de", "de-en"], default="en-de",
                    help="de-en trains on every pair with its sides swapped")
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
    ap.add_argument("--accumulate", type=int, default=1,
                    help="backpropagate each batch in this many slices whose gradients add up: the same updates "
                         "in less memory (one 32,000-token batch takes about 13 GB on a CPU)")
    ap.add_argument("--weight-decay", type=float, default=1e-4)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--time-budget-min", type=float, default=100.0,
                    help="stop (saving the state) once this run has trained this long; --resume continues")
    ap.add_argument("--checkpoint-every-min", type=float, default=10.0, help="save the state this often")
    ap.add_argument("--init-from", default=None, metavar="CHECKPOINT",
                    help="start from these weights (an epochN.pt or avg.pt of an earlier run, same model options) "
                         "and that run's vocabulary (spm.model beside it): a fine-tuning stage")
    ap.add_argument("--resume", action="store_true",
                    help="continue from OUT/state.pt (a fresh start when there is none)")
    ap.add_argument("--stop-after", type=int, default=0,
                    help="stop after this epoch (0: run --epochs); the lr schedule still plans for --epochs")
    ap.add_argument("--average", type=int, default=8, help="average the last N epochs' weights")
    ap.add_argument("--bleu-every", type=int, default=3, help="greedy dev BLEU every N epochs (0: never)")
    ap.add_argument("--bleu-sentences", type=int, default=0,
                    help="greedy dev BLEU on the first N sentences of each dev set (0: all)")
    ap.add_argument("--log-every", type=int, default=50, help="log the loss every N updates")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", help="where to train: cpu, or cuda on a machine with a GPU")
    ap.add_argument("--steps", type=int, default=0,
                    help="the run's length in updates, whatever the epoch count (0: --epochs epochs); "
                         "the cooldown ends there")
    ap.add_argument("--steps-from-minutes", type=float, default=0.0,
                    help="set --steps from this run's own speed so that it ends after about this many minutes "
                         "(for a lent GPU; the log gives the count for a rerun with --steps)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=0, help="stop (saving the state) after N updates")
    ap.add_argument("--bf16", action="store_true",
                    help="bfloat16 autocast for forward/backward (fp32 master weights; AMX/AVX512-BF16 CPUs)")
    ap.add_argument("--cooldown", type=float, default=0.0,
                    help="scale the lr linearly down to 0 over this last fraction of the planned updates "
                         "(--epochs x batches per epoch); 0: plain inverse-sqrt decay")
    ap.add_argument("--ema", type=float, default=0.0,
                    help="also keep an exponential moving average of the weights with this decay (0: off)")
    args = ap.parse_args()
    if args.ema > 0 and args.resume:
        ap.error("--ema is not part of the saved state: it cannot be combined with --resume")
    if args.steps and args.steps_from_minutes:
        ap.error("--steps and --steps-from-minutes both set the run's length: give one")
    if args.steps_from_minutes and args.cooldown > 1 - PLAN_KNOWN_AT:
        # A cooldown that should have begun before the length is known would start with a jump in the lr, a
        # schedule that no rerun with --steps follows.
        ap.error(f"--steps-from-minutes knows the run's length only after {PLAN_KNOWN_AT:.0%} of the minutes: "
                 f"give a --cooldown of at most {1 - PLAN_KNOWN_AT:.1f}")
    return args


def cpu_has_bf16():
    """bf16 autocast is fast only with AVX512-BF16 or AMX; elsewhere PyTorch emulates it, slower than fp32."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line.split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def main():
    args = parse_args()
    device = torch.device(args.device)
    if args.bf16 and device.type == "cpu" and not cpu_has_bf16():
        print("train.py: --bf16 ignored: this CPU has neither AVX512-BF16 nor AMX, fp32 is faster", flush=True)
        args.bf16 = False
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(args.data)), "..", "tools"))
    from bleu import corpus_bleu  # ../shared/tools/bleu.py, sacreBLEU defaults

    shared_dir = os.path.dirname(os.path.abspath(args.data))
    general_dir = args.general_data or os.path.join(shared_dir, "general-en-de")
    synthetic_names = [spec.partition("=")[0] for spec in args.synthetic]
    weights = parse_weights(args.mix, synthetic_names) if args.corpus == "general" else {}
    extra_dir = (args.extra_data or os.path.join(shared_dir, "general-en-de-extra")) if "kd" in weights else None
    corpus = load_corpus(args.corpus, args.data, general_dir, extra_dir)
    add_synthetic(corpus, args.data, args.synthetic)
    judged_dropped = drop_judged(corpus, judged_sentences())
    if args.direction == "de-en":
        corpus = reversed_corpus(corpus)
    spm_prefix = os.path.join(args.out, "spm")
    if args.init_from:
        copy_vocabulary(os.path.dirname(os.path.abspath(args.init_from)), spm_prefix)
    train_spm(corpus, spm_prefix, args.vocab)
    sp = spm.SentencePieceProcessor(model_file=spm_prefix + ".model")
    sources = {name: encode_pairs(sp, c["train"]) for name, c in corpus.items()}
    dev = {name: encode_pairs(sp, c["dev"]) for name, c in corpus.items() if c["dev"]}
    dev_refs = {name: [tgt for _, tgt in c["dev"]] for name, c in corpus.items() if c["dev"]}

    config = dict(vocab=sp.get_piece_size(), d_model=args.d_model, heads=args.heads,
                  enc_layers=args.enc_layers, dec_layers=args.dec_layers, ffn=args.ffn,
                  activation=args.activation)
    model = TrainModel(config["vocab"], args.d_model, args.heads, args.enc_layers, args.dec_layers,
                       args.ffn, args.dropout, args.activation).to(device)
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9,
                            weight_decay=args.weight_decay,
                            **({"fused": True} if device.type == "cuda" else {}))  # one kernel for all weights
    # Batch counts barely vary between epochs (same pairs, same token budget), so one epoch's count
    # plans the run's length for the cooldown.
    plan_rng = random.Random(args.seed)
    # With --steps-from-minutes the length is unknown until the run has measured its speed: no cooldown before.
    plan = dict(steps=args.steps or (0 if args.steps_from_minutes else args.epochs * len(
        make_batches(epoch_pairs(sources, weights, plan_rng), args.max_tokens, plan_rng))))

    def lr_scale(s):
        scale = min((s + 1) / args.warmup, math.sqrt(args.warmup / (s + 1)))
        cooldown_steps = args.cooldown * plan["steps"]
        if cooldown_steps > 0:
            scale *= min(1.0, max(0.0, plan["steps"] - s) / cooldown_steps)
        return scale

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_scale)
    log = open(os.path.join(args.out, "train.log"), "a")

    def say(msg):
        print(msg, flush=True)
        log.write(msg + "\n")
        log.flush()

    rng = random.Random(args.seed)
    progress = dict(step=0, epoch=1, batch=0, minutes=0.0, loss=0.0, tokens=0.0, epoch_seconds=0.0)
    epoch_rng_state = rng.getstate()
    resumed = load_state(args.out, model, opt, sched, config) if args.resume else None
    if resumed:
        progress, epoch_rng_state = resumed
        plan["steps"] = progress.get("planned_steps", plan["steps"])
        say(f"resumed from {args.out}/state.pt: epoch {progress['epoch']} batch {progress['batch']} "
            f"step {progress['step']} after {progress['minutes']:.1f} min")
    elif args.resume:
        say(f"no {args.out}/state.pt: starting afresh")
    if args.init_from and not resumed:
        init = torch.load(args.init_from, map_location="cpu")
        if init["config"] != config:
            raise SystemExit(f"{args.init_from}: saved with model {init['config']}, this run asks for {config}")
        model.load_state_dict(init["model"])
        say(f"initialised from {args.init_from}:" + dev_report(model.eval(), sp, dev, dev_refs, args, corpus_bleu,
                                                               bool(args.bleu_every)))
    counts = {name: (len(p), sum(len(s) for s, _ in p), sum(len(t) + 1 for _, t in p))
              for name, p in sources.items()}
    say(f"config {json.dumps(config)} params {n_params} planned_steps {plan['steps'] or 'from speed'} "
        f"train pairs/src tokens/tgt tokens {json.dumps(counts)} args {json.dumps(vars(args))}")
    say(f"pairs dropped for holding a judged everyday sentence: {json.dumps(judged_dropped)}")
    # The EMA copy of the parameters (buffers are fixed tables); saved beside each epoch's weights.
    ema = [p.detach().clone() for p in model.parameters()] if args.ema > 0 else None
    start, cpu_start, run_tokens = time.time(), time.process_time(), [0]
    last_save = start
    minutes_before = progress["minutes"]

    def run_minutes():
        return (time.time() - start) / 60

    def throughput():
        """This run's speed; CPU seconds count every thread, so they measure cost on a busy machine too."""
        tokens = run_tokens[0]
        return (f"{tokens:.0f} tgt tokens in {time.time() - start:.0f} s, {time.process_time() - cpu_start:.0f} "
                f"CPU s: {tokens / (time.time() - start):.0f} tgt tok/s, "
                f"{tokens / (time.process_time() - cpu_start):.0f} tgt tok/CPU s")

    def save(epoch_rng):
        progress["minutes"] = minutes_before + run_minutes()
        progress["planned_steps"] = plan["steps"]
        save_state(args.out, model, opt, sched, config, progress, epoch_rng)

    speed_mark = []  # (step, minutes) where --steps-from-minutes starts timing

    def plan_from_speed(step):
        """Set the run's length from its speed since SPEED_FROM of the minutes, again at each update until the
        cooldown begins, keeping 3% in reserve."""
        minutes, budget = run_minutes(), args.steps_from_minutes
        if minutes < SPEED_FROM * budget:
            return
        if not speed_mark:
            speed_mark.append((step, minutes))
            return
        if plan["steps"] and step >= (1 - args.cooldown) * plan["steps"]:
            if not plan.get("fixed"):
                plan["fixed"] = True
                say(f"planned_steps {plan['steps']} ({plan['rate']:.1f} updates/min when the cooldown began)")
            return
        if minutes - speed_mark[0][1] < SPEED_OVER * budget:
            return
        plan["rate"] = (step - speed_mark[0][0]) / (minutes - speed_mark[0][1])
        plan["steps"] = step + int(0.97 * plan["rate"] * (budget - minutes))

    def run_done():
        if args.steps or args.steps_from_minutes:
            return bool(plan["steps"]) and progress["step"] >= plan["steps"]
        return progress["epoch"] > args.epochs or bool(args.stop_after and progress["epoch"] > args.stop_after)

    while not run_done():
        epoch = progress["epoch"]
        rng.setstate(epoch_rng_state)
        pairs = epoch_pairs(sources, weights, rng)
        batches = make_batches(pairs, args.max_tokens, rng)
        model.train()
        t0 = time.time() - progress["epoch_seconds"]
        while progress["batch"] < len(batches):
            if args.max_steps and progress["step"] >= args.max_steps:
                save(epoch_rng_state)
                say(f"stopped at step {progress['step']} (--max-steps); this run: {throughput()}")
                return 0
            opt.zero_grad(set_to_none=True)
            loss_sum, ntok = backward_in_parts(model, *collate(pairs, batches[progress["batch"]]), args.accumulate,
                                               args.label_smoothing, args.bf16)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            progress["step"] += 1
            progress["batch"] += 1
            step = progress["step"]
            if ema is not None:
                with torch.no_grad():
                    for e, p in zip(ema, model.parameters()):
                        e.lerp_(p, 1.0 - args.ema)
            progress["loss"] += loss_sum
            progress["tokens"] += ntok
            run_tokens[0] += ntok
            progress["epoch_seconds"] = time.time() - t0
            if args.steps_from_minutes:
                plan_from_speed(step)
            if step % args.log_every == 0:
                say(f"epoch {epoch} step {step} loss {progress['loss'] / progress['tokens']:.3f} "
                    f"batch_loss {loss_sum / ntok:.6f} "
                    f"{progress['tokens'] / progress['epoch_seconds']:.0f} tgt tok/s lr {sched.get_last_lr()[0]:.2e} "
                    f"run_tokens {run_tokens[0]} run_cpu_s {time.process_time() - cpu_start:.2f}")
            if run_minutes() >= args.time_budget_min:
                save(epoch_rng_state)
                say(f"time budget used up at epoch {epoch} step {step}; rerun with --resume to continue; "
                    f"this run: {throughput()}")
                return EXIT_BUDGET_USED
            if time.time() - last_save >= 60 * args.checkpoint_every_min:
                save(epoch_rng_state)
                last_save = time.time()
            if run_done():
                break
        end_epoch(args, model, sp, config, progress, dev, dev_refs, ema, corpus_bleu, say)
        progress.update(epoch=epoch + 1, batch=0, loss=0.0, tokens=0.0, epoch_seconds=0.0)
        epoch_rng_state = rng.getstate()
        save(epoch_rng_state)
        last_save = time.time()
    average_last_epochs(args, model, config, sp, dev, dev_refs, corpus_bleu, say)
    return 0


def copy_vocabulary(init_dir, spm_prefix):
    """The earlier run's SentencePiece files, so the weights read the same piece ids."""
    for ext in (".model", ".vocab"):
        src = os.path.join(init_dir, "spm" + ext)
        if not os.path.exists(src):
            raise SystemExit(f"--init-from: no {src} beside the checkpoint")
        if not os.path.exists(spm_prefix + ext):
            shutil.copyfile(src, spm_prefix + ext)


def dev_report(model, sp, dev, dev_refs, args, corpus_bleu, with_bleu, prefix=""):
    """' val_nll <mean over sources> (name nll, ...)' and, when asked, greedy BLEU per dev set."""
    nll = {name: val_nll(model, pairs) for name, pairs in dev.items()}
    msg = f" {prefix}val_nll {sum(nll.values()) / len(nll):.3f}"
    if len(nll) > 1:
        msg += " (" + ", ".join(f"{name} {v:.3f}" for name, v in nll.items()) + ")"
    if with_bleu:
        n = args.bleu_sentences or None
        msg += f" {prefix}val_bleu_greedy " + ", ".join(
            f"{name} {val_bleu(model, sp, [s for s, _ in pairs[:n]], dev_refs[name][:n], corpus_bleu):.2f}"
            for name, pairs in dev.items())
    return msg


def cpu_state(model):
    """The weights as CPU tensors, so that a checkpoint saved on a GPU loads anywhere."""
    return {k: v.cpu() for k, v in model.state_dict().items()}


def end_epoch(args, model, sp, config, progress, dev, dev_refs, ema, corpus_bleu, say):
    epoch = progress["epoch"]
    model.eval()
    with_bleu = bool(args.bleu_every) and epoch % args.bleu_every == 0
    msg = (f"END epoch {epoch} step {progress['step']} train_loss {progress['loss'] / progress['tokens']:.3f}"
           + dev_report(model, sp, dev, dev_refs, args, corpus_bleu, with_bleu)
           + f" epoch_min {progress['epoch_seconds'] / 60:.1f}")
    torch.save({"config": config, "model": cpu_state(model), "epoch": epoch},
               os.path.join(args.out, f"epoch{epoch}.pt"))
    if ema is not None:
        with swapped_in(model, ema):
            msg += dev_report(model, sp, dev, dev_refs, args, corpus_bleu, with_bleu, "ema_")
            torch.save({"config": config, "model": cpu_state(model), "epoch": epoch, "ema": args.ema},
                       os.path.join(args.out, f"ema{epoch}.pt"))
    say(msg)


def average_last_epochs(args, model, config, sp, dev, dev_refs, corpus_bleu, say):
    last = sorted(int(f[5:-3]) for f in os.listdir(args.out) if f.startswith("epoch") and f.endswith(".pt"))
    chosen = last[-args.average:]
    avg = None
    for e in chosen:
        sd = torch.load(os.path.join(args.out, f"epoch{e}.pt"), map_location="cpu")["model"]
        avg = {k: v.double().clone() for k, v in sd.items()} if avg is None else \
            {k: avg[k] + sd[k].double() for k in avg}
    avg = {k: (v / len(chosen)).float() for k, v in avg.items()}
    model.load_state_dict(avg)
    model.eval()
    torch.save({"config": config, "model": avg, "epochs": chosen}, os.path.join(args.out, "avg.pt"))
    say(f"averaged epochs {chosen}:" + dev_report(model, sp, dev, dev_refs, args, corpus_bleu, bool(args.bleu_every)))


if __name__ == "__main__":
    sys.exit(main())
