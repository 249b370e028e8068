#!/usr/bin/python3
"""Convert a tools/train.py checkpoint (avg.pt / epochN.pt) to our checkpoint format v1.

  /usr/bin/python3 tools/export.py build/train/avg.pt --out models/en-de [--dtype f16] \
      [--spm build/train/spm.model] [--beam 5] [--length-penalty 1.0] [--max-length-a 1.5] [--max-length-b 10] \
      [--repetition-penalty 1.0] [--no-repeat-ngram-size 0]

TrainModel (tools/train_model.py) is PyTorch's nn.TransformerEncoder/DecoderLayer, post-norm, batch_first:
  self_attn.in_proj_weight [3d, d] = q, k, v stacked; linear1 -> fc1, linear2 -> fc2;
  encoder norm1 -> self_attn_norm, norm2 -> ffn_norm;
  decoder norm1 -> self_attn_norm, norm2 -> cross_attn_norm (multihead_attn), norm3 -> ffn_norm;
  one embedding `embed.weight` for source, target and output (tied, no bias); paper sinusoids
  (interleaved) from position 0; embeddings scaled by sqrt(d); LayerNorm eps 1e-5;
  ids pad 0, unk 1, bos 2 (= decoder start), eos 3; sources end with EOS.
"""
import argparse
import os
import shutil
import sys
from collections import OrderedDict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import write_checkpoint  # noqa: E402

PAD, UNK, BOS, EOS = 0, 1, 2, 3
MAX_POSITIONS = 1024      # TrainModel's sinusoid buffer has 1024 rows


def split_attention(sd, src, dst, out):
    """PyTorch MultiheadAttention (packed in_proj) -> q/k/v/out projections."""
    w = sd[f"{src}.in_proj_weight"]
    b = sd[f"{src}.in_proj_bias"]
    d = w.shape[1]
    for i, name in enumerate(("q_proj", "k_proj", "v_proj")):
        out[f"{dst}.{name}.weight"] = w[i * d:(i + 1) * d]
        out[f"{dst}.{name}.bias"] = b[i * d:(i + 1) * d]
    out[f"{dst}.out_proj.weight"] = sd[f"{src}.out_proj.weight"]
    out[f"{dst}.out_proj.bias"] = sd[f"{src}.out_proj.bias"]


def copy_norm(sd, src, dst, out):
    out[f"{dst}.weight"] = sd[f"{src}.weight"]
    out[f"{dst}.bias"] = sd[f"{src}.bias"]


def convert_state_dict(sd, enc_layers, dec_layers):
    """TrainModel state dict -> our tensor names (float32 numpy arrays)."""
    out = OrderedDict()
    out["encoder.embed_tokens"] = sd["embed.weight"]
    for n in range(enc_layers):
        s, d = f"encoder.layers.{n}", f"encoder.layers.{n}"
        split_attention(sd, f"{s}.self_attn", f"{d}.self_attn", out)
        copy_norm(sd, f"{s}.norm1", f"{d}.self_attn_norm", out)
        for lin, fc in (("linear1", "fc1"), ("linear2", "fc2")):
            out[f"{d}.{fc}.weight"] = sd[f"{s}.{lin}.weight"]
            out[f"{d}.{fc}.bias"] = sd[f"{s}.{lin}.bias"]
        copy_norm(sd, f"{s}.norm2", f"{d}.ffn_norm", out)
    for n in range(dec_layers):
        s, d = f"decoder.layers.{n}", f"decoder.layers.{n}"
        split_attention(sd, f"{s}.self_attn", f"{d}.self_attn", out)
        copy_norm(sd, f"{s}.norm1", f"{d}.self_attn_norm", out)
        split_attention(sd, f"{s}.multihead_attn", f"{d}.cross_attn", out)
        copy_norm(sd, f"{s}.norm2", f"{d}.cross_attn_norm", out)
        for lin, fc in (("linear1", "fc1"), ("linear2", "fc2")):
            out[f"{d}.{fc}.weight"] = sd[f"{s}.{lin}.weight"]
            out[f"{d}.{fc}.bias"] = sd[f"{s}.{lin}.bias"]
        copy_norm(sd, f"{s}.norm3", f"{d}.ffn_norm", out)
    return OrderedDict((k, v.detach().float().cpu().numpy()) for k, v in out.items())


def model_config(cfg):
    """train.py's config dict -> our `config` section."""
    if cfg["activation"] not in ("relu", "gelu"):
        raise ValueError(f"activation '{cfg['activation']}' is not supported by the exporter")
    return {
        "d_model": cfg["d_model"], "n_heads": cfg["heads"],
        "encoder_layers": cfg["enc_layers"], "decoder_layers": cfg["dec_layers"], "ffn_dim": cfg["ffn"],
        "activation": cfg["activation"],      # PyTorch's "gelu" is the exact (erf) form
        "norm": "post", "final_norm": False, "layer_norm_eps": 1e-5,
        "positions": "sinusoidal-interleaved", "max_positions": MAX_POSITIONS,
        "scale_embedding": True, "shared_embeddings": True, "tied_output": True, "output_bias": False,
        "src_vocab_size": cfg["vocab"], "tgt_vocab_size": cfg["vocab"],
    }


def export(pt_path, out_dir, spm_path, dtype="f32", beam=5, length_penalty=1.0,
           max_length_a=1.5, max_length_b=10, max_length=512, source_lang="en", target_lang="de",
           alignment_layer=None, repetition_penalty=1.0, no_repeat_ngram_size=0):
    ckpt = torch.load(pt_path, map_location="cpu")
    cfg = ckpt["config"]
    config = model_config(cfg)
    tensors = convert_state_dict(ckpt["model"], cfg["enc_layers"], cfg["dec_layers"])
    tokens = {"pad": PAD, "unk": UNK, "eos": EOS, "decoder_start": BOS}
    decoding = {"beam_size": beam, "length_penalty": length_penalty,
                "max_length_a": max_length_a, "max_length_b": max_length_b,
                "max_length": min(max_length, MAX_POSITIONS),
                # train.py's validation greedy bans pad before the softmax: renormalize = the same thing
                "ban_unk": False, "renormalize": True}
    if alignment_layer is not None:  # measured after training: tools/alignment_check.py --gold
        decoding["alignment_layer"] = alignment_layer
    # Loop guards (docs/search.md): written only when on, as nmt writes them.
    if repetition_penalty != 1.0:
        decoding["repetition_penalty"] = repetition_penalty
    if no_repeat_ngram_size > 0:
        decoding["no_repeat_ngram_size"] = no_repeat_ngram_size
    spm_name = os.path.basename(spm_path)
    tokenizer = {"source_spm": spm_name, "target_spm": spm_name, "source_vocab": None,
                 "target_vocab": None, "add_eos": True}
    os.makedirs(out_dir, exist_ok=True)
    shutil.copyfile(spm_path, os.path.join(out_dir, spm_name))
    return write_checkpoint(out_dir, config, tokens, decoding, tokenizer, tensors, dtype=dtype,
                            source_lang=source_lang, target_lang=target_lang)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="avg.pt or epochN.pt written by tools/train.py")
    ap.add_argument("--out", required=True, help="output model directory")
    ap.add_argument("--spm", default=None, help="SentencePiece model (default: spm.model beside the checkpoint)")
    ap.add_argument("--dtype", choices=["f32", "f16"], default="f16")
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--length-penalty", type=float, default=1.0)
    ap.add_argument("--max-length-a", type=float, default=1.5,
                    help="max generated = floor(a * source ids incl. EOS + b); train.py validates with 1.5")
    ap.add_argument("--max-length-b", type=int, default=10)
    ap.add_argument("--max-length", type=int, default=512)
    ap.add_argument("--repetition-penalty", type=float, default=1.0, help="loop guard; 1 = off")
    ap.add_argument("--no-repeat-ngram-size", type=int, default=0, help="loop guard; 0 = off")
    ap.add_argument("--source-lang", default="en", help="model.json source_lang (sentence splitting rules)")
    ap.add_argument("--target-lang", default="de", help="model.json target_lang")
    ap.add_argument("--alignment-layer", type=int, default=None,
                    help="decoding.alignment_layer: the decoder layer --alignment reads (default: the last)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    spm_path = args.spm or os.path.join(os.path.dirname(os.path.abspath(args.checkpoint)), "spm.model")
    meta = export(args.checkpoint, args.out, spm_path, args.dtype, args.beam, args.length_penalty,
                  args.max_length_a, args.max_length_b, args.max_length, args.source_lang, args.target_lang,
                  args.alignment_layer, args.repetition_penalty, args.no_repeat_ngram_size)
    print(f"wrote {args.out}: {len(meta['tensors'])} tensors, {meta['weights']['size']} bytes, "
          f"crc32 {meta['weights']['crc32']}")


if __name__ == "__main__":
    main()
