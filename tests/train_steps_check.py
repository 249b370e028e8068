#!/usr/bin/python3
"""tools/train.py's run length in updates: --steps N stops at update N whatever the epochs (crossing their
ends), with the lr cooled down to 0 there; --steps-from-minutes M plans that count from the run's own speed,
logs it and stops there, after about M minutes, and refuses a cooldown that would begin before that count is
known. A tiny model on a made-up corpus in a temp dir. And
--accumulate's slices: a batch backpropagated in three slices gives the whole batch's loss and gradients."""
import gzip
import os
import random
import re
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools")
TRAIN = os.path.join(TOOLS, "train.py")
WORDS = [("the cat", "die Katze"), ("the dog", "der Hund"), ("a bird", "ein Vogel"), ("my friend", "mein Freund")]
VERBS = [("sees", "sieht"), ("likes", "mag"), ("finds", "findet")]
TINY = ["--corpus", "multi30k", "--vocab", "60", "--d-model", "16", "--heads", "2", "--enc-layers", "1",
        "--dec-layers", "1", "--ffn", "32", "--warmup", "3", "--max-tokens", "1000", "--epochs", "1",
        "--cooldown", "1.0", "--average", "1", "--bleu-every", "0", "--log-every", "1", "--threads", "1"]


def write_corpus(root):
    """ROOT/data/multi30k/{train,val,test_2016_flickr}.{en,de}.gz and the BLEU module train.py imports."""
    rng = random.Random(7)
    data = os.path.join(root, "data", "multi30k")
    os.makedirs(data)
    for split, n in (("train", 300), ("val", 20), ("test_2016_flickr", 20)):
        pairs = []
        for _ in range(n):
            (se, sd), (ve, vd), (oe, od) = rng.choice(WORDS), rng.choice(VERBS), rng.choice(WORDS)
            pairs.append((f"{se} {ve} {oe} {rng.randint(1, 99)}", f"{sd} {vd} {od} {rng.randint(1, 99)}"))
        for side, lang in ((0, "en"), (1, "de")):
            with gzip.open(os.path.join(data, f"{split}.{lang}.gz"), "wt", encoding="utf-8") as f:
                f.write("".join(p[side] + "\n" for p in pairs))
    os.makedirs(os.path.join(root, "tools"))
    with open(os.path.join(root, "tools", "bleu.py"), "w", encoding="utf-8") as f:
        f.write("def corpus_bleu(hyps, refs):\n    raise AssertionError('no BLEU with --bleu-every 0')\n")
    return data


def command(data, out, *extra):
    return [sys.executable, TRAIN, "--data", data, "--out", out, *TINY, *extra]


def train(data, out, *extra):
    cmd = command(data, out, *extra)
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"train.py {' '.join(extra)}: still running after 120 s; it should stop in seconds")
    if run.returncode != 0:
        raise SystemExit(f"train.py failed ({run.returncode}): {run.stderr[-2000:]}")
    with open(os.path.join(out, "train.log"), encoding="utf-8") as f:
        return f.read()


def updates(log):
    """[(step, lr)] of every logged update, and the epochs that ended."""
    steps = [(int(s), float(lr)) for s, lr in re.findall(r"^epoch \d+ step (\d+) .* lr (\S+)", log, re.M)]
    return steps, [int(e) for e in re.findall(r"^END epoch (\d+)", log, re.M)]


def report(failures, what):
    """Each failure on a line, then WHAT: ok or FAIL; the exit status."""
    for line in failures:
        print(line)
    print(f"{what}:", "FAIL" if failures else "ok")
    return 1 if failures else 0


def slice_failures():
    """Gradients of one batch in one piece and in three slices (no dropout, fp32) must agree."""
    sys.path.insert(0, TOOLS)
    import torch
    from train_model import TrainModel, backward_in_parts

    torch.manual_seed(3)
    model = TrainModel(30, 16, 2, 1, 1, 32, 0.0, "relu")
    src = torch.randint(4, 30, (7, 9))
    tgt = torch.randint(4, 30, (7, 6))
    src[2, 5:] = 0  # PAD: rows of unequal length, as collate pads them
    tgt[4, 3:] = 0
    results = []
    for parts in (1, 3):
        model.zero_grad(set_to_none=True)
        loss, ntok = backward_in_parts(model, src, tgt, tgt.roll(-1, 1), parts, 0.1, False)
        results.append((loss, ntok, [p.grad.clone() for p in model.parameters()]))
    (loss1, ntok1, grads1), (loss3, ntok3, grads3) = results
    failures = []
    if ntok1 != ntok3 or abs(loss1 - loss3) > 1e-4 * abs(loss1):
        failures.append(f"--accumulate 3: loss {loss3} over {ntok3} tokens, in one piece {loss1} over {ntok1}")
    worst = max((g3 - g1).abs().max().item() / (g1.abs().max().item() + 1e-12) for g1, g3 in zip(grads1, grads3))
    if worst > 1e-4:
        failures.append(f"--accumulate 3: gradients differ from the whole batch's by up to {worst:.2e} (relative)")
    return failures


def main():
    failures = slice_failures()
    with tempfile.TemporaryDirectory() as tmp:
        data = write_corpus(tmp)
        log = train(data, os.path.join(tmp, "steps"), "--steps", "25")
        steps, epochs = updates(log)
        if [s for s, _ in steps] != list(range(1, 26)):
            failures.append(f"--steps 25: logged updates {[s for s, _ in steps][-3:]}, expected 1..25")
        if len(epochs) < 2:
            failures.append(f"--steps 25: ended epochs {epochs}; the run should cross an epoch's end")
        if steps and steps[-1][1] != 0.0:
            failures.append(f"--steps 25: lr {steps[-1][1]} at the last update, expected 0 (cooled down)")
        if not os.path.exists(os.path.join(tmp, "steps", "avg.pt")):
            failures.append("--steps 25: no avg.pt")

        refused = subprocess.run(command(data, os.path.join(tmp, "refused"), "--steps-from-minutes", "0.1"),
                                 capture_output=True, text=True, timeout=60)
        if refused.returncode != 2 or "--cooldown" not in refused.stderr:
            failures.append(f"--steps-from-minutes with --cooldown 1.0: exit {refused.returncode}, expected a usage "
                            f"error naming --cooldown")
        log = train(data, os.path.join(tmp, "minutes"), "--steps-from-minutes", "0.1", "--cooldown", "0.5")
        steps, _ = updates(log)
        planned = re.findall(r"^planned_steps (\d+)", log, re.M)
        if len(planned) != 1:
            failures.append(f"--steps-from-minutes: {len(planned)} planned_steps lines, expected 1")
        elif not steps or steps[-1][0] != int(planned[0]):
            failures.append(f"--steps-from-minutes: stopped at {steps[-1][0] if steps else None}, "
                            f"planned {planned[0]}")
        if not os.path.exists(os.path.join(tmp, "minutes", "avg.pt")):
            failures.append("--steps-from-minutes: no avg.pt")
    return report(failures, "train.py run length and batch slices")


if __name__ == "__main__":
    sys.exit(main())
