#!/usr/bin/python3
"""Turn an nmt checkpoint that tools/export.py wrote (then converted, possibly to int8) back into a
tools/train.py checkpoint, so a later training stage can start from a shipped model's weights.

  build/nmt convert --from nmt data/general-en-de -o build/general-f32 --dtype f32
  /usr/bin/python3 tools/import_checkpoint.py build/general-f32 --out build/distill-init/model.pt

Writes OUT (the weights, as train.py's epochN.pt) and spm.model + spm.vocab beside it (the vocabulary
--init-from reads). Only the layout tools/export.py writes is accepted; anything else is refused by name.
"""
import argparse
import os
import shutil
import sys
from collections import OrderedDict

import numpy as np
import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import read_checkpoint  # noqa: E402
from export import model_config  # noqa: E402


def train_config(config):
    """Our `config` section -> train.py's config dict; refuses what export.py never writes."""
    cfg = dict(vocab=config["src_vocab_size"], d_model=config["d_model"], heads=config["n_heads"],
               enc_layers=config["encoder_layers"], dec_layers=config["decoder_layers"], ffn=config["ffn_dim"],
               activation=config["activation"])
    expected = model_config(cfg)
    for key, value in expected.items():
        if key != "max_positions" and config.get(key) != value:
            raise SystemExit(f"import_checkpoint: config.{key} is {config.get(key)!r}; "
                             f"tools/train.py models have {value!r}")
    return cfg


def join_attention(tensors, src, dst, out):
    """q/k/v/out projections -> PyTorch MultiheadAttention's packed in_proj."""
    out[f"{dst}.in_proj_weight"] = np.concatenate([tensors[f"{src}.{p}_proj.weight"] for p in "qkv"])
    out[f"{dst}.in_proj_bias"] = np.concatenate([tensors[f"{src}.{p}_proj.bias"] for p in "qkv"])
    out[f"{dst}.out_proj.weight"] = tensors[f"{src}.out_proj.weight"]
    out[f"{dst}.out_proj.bias"] = tensors[f"{src}.out_proj.bias"]


def copy_linear_and_norms(tensors, name, norms, out):
    for ours, theirs in norms:
        out[f"{name}.{theirs}.weight"] = tensors[f"{name}.{ours}.weight"]
        out[f"{name}.{theirs}.bias"] = tensors[f"{name}.{ours}.bias"]
    for fc, lin in (("fc1", "linear1"), ("fc2", "linear2")):
        out[f"{name}.{lin}.weight"] = tensors[f"{name}.{fc}.weight"]
        out[f"{name}.{lin}.bias"] = tensors[f"{name}.{fc}.bias"]


def state_dict(tensors, cfg):
    """Our tensor names -> TrainModel's state dict (the inverse of export.convert_state_dict)."""
    out = OrderedDict()
    out["embed.weight"] = tensors["encoder.embed_tokens"]
    for n in range(cfg["enc_layers"]):
        name = f"encoder.layers.{n}"
        join_attention(tensors, f"{name}.self_attn", f"{name}.self_attn", out)
        copy_linear_and_norms(tensors, name, (("self_attn_norm", "norm1"), ("ffn_norm", "norm2")), out)
    for n in range(cfg["dec_layers"]):
        name = f"decoder.layers.{n}"
        join_attention(tensors, f"{name}.self_attn", f"{name}.self_attn", out)
        join_attention(tensors, f"{name}.cross_attn", f"{name}.multihead_attn", out)
        copy_linear_and_norms(tensors, name, (("self_attn_norm", "norm1"), ("cross_attn_norm", "norm2"),
                                              ("ffn_norm", "norm3")), out)
    return OrderedDict((k, torch.from_numpy(np.ascontiguousarray(v, dtype=np.float32))) for k, v in out.items())


def write_vocabulary(spm_path, out_dir):
    """spm.model and the spm.vocab train.py's --init-from copies (piece, score per line)."""
    shutil.copyfile(spm_path, os.path.join(out_dir, "spm.model"))
    sp = spm.SentencePieceProcessor(model_file=spm_path)
    with open(os.path.join(out_dir, "spm.vocab"), "w", encoding="utf-8") as f:
        for i in range(sp.get_piece_size()):
            f.write(f"{sp.id_to_piece(i)}\t{sp.get_score(i):g}\n")


def import_model(model_dir, out_pt):
    """Writes out_pt and the vocabulary beside it; returns the train.py checkpoint dict."""
    meta, tensors = read_checkpoint(model_dir)
    cfg = train_config(meta["config"])
    spm_name = meta["tokenizer"]["source_spm"]
    if spm_name != meta["tokenizer"]["target_spm"]:
        raise SystemExit("import_checkpoint: tools/train.py models share one SentencePiece model")
    ckpt = {"config": cfg, "model": state_dict(tensors, cfg), "imported_from": os.path.abspath(model_dir)}
    out_dir = os.path.dirname(os.path.abspath(out_pt))
    os.makedirs(out_dir, exist_ok=True)
    torch.save(ckpt, out_pt)
    write_vocabulary(os.path.join(model_dir, spm_name), out_dir)
    return ckpt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="an f32 or f16 nmt checkpoint folder (nmt convert --dtype f32 of an int8 one)")
    ap.add_argument("--out", required=True, help="the .pt to write")
    args = ap.parse_args()
    ckpt = import_model(args.model, args.out)
    print(f"wrote {args.out}: {len(ckpt['model'])} tensors from {args.model}")


if __name__ == "__main__":
    main()
