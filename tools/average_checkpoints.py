#!/usr/bin/python3
"""Average the weights of several tools/train.py checkpoints (epochN.pt) into one file.

  /usr/bin/python3 tools/average_checkpoints.py build/train/epoch{7,8,9}.pt --out build/train/avg.pt
"""
import argparse

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoints", nargs="+")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    total, config = None, None
    for path in args.checkpoints:
        ckpt = torch.load(path, map_location="cpu")
        config = ckpt["config"]
        sd = ckpt["model"]
        total = {k: v.double().clone() for k, v in sd.items()} if total is None else \
            {k: total[k] + sd[k].double() for k in total}
    avg = {k: (v / len(args.checkpoints)).float() for k, v in total.items()}
    torch.save({"config": config, "model": avg, "epochs": args.checkpoints}, args.out)
    print(f"averaged {len(args.checkpoints)} checkpoints into {args.out}")


if __name__ == "__main__":
    main()
