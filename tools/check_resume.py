#!/usr/bin/python3
"""Check that tools/train.py --resume continues exactly: N updates in one run == N/2 + resume to N.

  /usr/bin/python3 tools/check_resume.py [--steps 80] [--work build/check-resume] [--data ../shared/data/multi30k]

A tiny model on a small general-domain mix (a few dozen batches an epoch), so the runs cross epoch ends
and the break falls mid-epoch. Compares every logged batch loss and every tensor of the final states
(model, optimizer) bit for bit; exit status 0 when they all match.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

import torch

TOOLS = os.path.dirname(os.path.abspath(__file__))
TINY = ["--corpus", "general", "--mix", "multi30k=0.03,tatoeba=0.05,news=0.02", "--vocab", "1000",
        "--d-model", "32", "--heads", "2", "--enc-layers", "1", "--dec-layers", "1", "--ffn", "64",
        "--warmup", "20", "--epochs", "10", "--cooldown", "0.3", "--bleu-every", "0", "--log-every", "1",
        "--average", "2", "--threads", "1"]


def train(data, out, steps, resume=False):
    cmd = [sys.executable, os.path.join(TOOLS, "train.py"), "--data", data, "--out", out,
           "--max-steps", str(steps), *TINY] + (["--resume"] if resume else [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def batch_losses(out):
    """step -> the batch loss text as logged (6 decimals) from OUT/train.log."""
    with open(os.path.join(out, "train.log"), encoding="utf-8") as f:
        return {int(m.group(1)): m.group(2) for m in re.finditer(r"step (\d+) loss \S+ batch_loss (\S+)", f.read())}


def flat_tensors(obj, prefix=""):
    if torch.is_tensor(obj):
        yield prefix, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from flat_tensors(v, f"{prefix}/{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from flat_tensors(v, f"{prefix}/{i}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--work", default="build/check-resume")
    ap.add_argument("--data", default="../shared/data/multi30k")
    args = ap.parse_args()
    one, two = os.path.join(args.work, "one-run"), os.path.join(args.work, "two-runs")
    for d in (one, two):
        shutil.rmtree(d, ignore_errors=True)
    train(args.data, one, args.steps)
    os.makedirs(two)
    shutil.copyfile(os.path.join(one, "spm.model"), os.path.join(two, "spm.model"))  # spare a second spm run
    train(args.data, two, args.steps // 2)
    train(args.data, two, args.steps, resume=True)

    failures = []
    a, b = batch_losses(one), batch_losses(two)
    if sorted(a) != list(range(1, args.steps + 1)) or sorted(b) != sorted(a):
        failures.append(f"logged steps differ: one run {len(a)}, two runs {len(b)}")
    failures += [f"step {s}: batch loss {a[s]} vs {b[s]}" for s in sorted(a) if s in b and a[s] != b[s]]
    sa, sb = torch.load(os.path.join(one, "state.pt")), torch.load(os.path.join(two, "state.pt"))
    ta = dict(flat_tensors({"model": sa["model"], "optimizer": sa["optimizer"]["state"]}))
    tb = dict(flat_tensors({"model": sb["model"], "optimizer": sb["optimizer"]["state"]}))
    failures += [f"tensor {k} differs" for k in ta if k not in tb or not torch.equal(ta[k], tb[k])]
    if sa["progress"]["step"] != sb["progress"]["step"]:
        failures.append(f"final step {sa['progress']['step']} vs {sb['progress']['step']}")
    for line in failures[:20]:
        print(line)
    print(f"{args.steps} updates in one run vs {args.steps // 2} + resume: "
          f"{len(a)} batch losses, {len(ta)} tensors compared: {'FAIL' if failures else 'identical'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
