#!/usr/bin/python3
"""An nmt checkpoint as a CTranslate2 model directory, for the bench's CTranslate2 rows only.

  /usr/bin/python3 tools/ct2_convert.py MODEL_DIR OUT_DIR [--quantization int8] [--ct2 /opt/ctranslate2]

The weights go through CTranslate2's own model specification (its Python package's specs, found at
/opt/ctranslate2/python/ctranslate2 beside the library, which is built there by hand, never by nmt):
its TransformerSpec validates the names and shapes, quantizes (int8: one scale per output row, its own
rule) and writes model.bin, config.json and the vocabularies. The specs are plain Python over numpy; the
package's compiled half (its __init__ imports it) is never imported, so no Python wheel is needed.

int8 nmt checkpoints (general-en-de) are dequantized (q * row scale) on the way, so both engines start
from the same f32 values. Positions are written as an explicit table computed as models/positions.cc
does (CTranslate2's own sinusoid is the concat layout only).
"""
import argparse
import json
import os
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import sinusoid_table  # noqa: E402

DTYPES = {"f32": np.float32, "f16": np.float16, "i8": np.int8}


def import_ct2_specs(ct2_root):
    """ctranslate2.specs from ct2_root/python without running the package's __init__ (compiled half)."""
    package_dir = os.path.join(ct2_root, "python", "ctranslate2")
    if not os.path.isdir(os.path.join(package_dir, "specs")):
        sys.exit(f"ct2_convert: no {package_dir}/specs (CTranslate2's Python package is not installed there)")
    package = types.ModuleType("ctranslate2")
    package.__path__ = [package_dir]
    sys.modules["ctranslate2"] = package
    from ctranslate2.specs import common_spec, transformer_spec
    return common_spec, transformer_spec


def read_weights(model_dir):
    """(meta, name -> float32 array) of an nmt checkpoint of any dtype; i8 tensors times their scales."""
    with open(os.path.join(model_dir, "model.json"), encoding="utf-8") as f:
        meta = json.load(f)
    with open(os.path.join(model_dir, meta["weights"]["file"]), "rb") as f:
        blob = f.read()
    raw = {}
    for t in meta["tensors"]:
        dtype = np.dtype(DTYPES[t["dtype"]])
        count = t["nbytes"] // dtype.itemsize
        raw[t["name"]] = np.frombuffer(blob, dtype=dtype, count=count, offset=t["offset"]).reshape(t["shape"])
    tensors = {}
    for name, array in raw.items():
        if name.endswith(".scales"):
            continue
        if array.dtype == np.int8:
            array = array.astype(np.float32) * raw[name + ".scales"].astype(np.float32)[:, None]
        tensors[name] = np.array(array, dtype=np.float32)  # a writable copy: the quantizer scales in place
    return meta, tensors


def vocabularies(model_dir, meta):
    """(source pieces, target pieces) in id order: the vocab JSON if the checkpoint names one, else the spm's."""
    tok = meta["tokenizer"]

    def pieces(vocab_key, spm_key):
        if tok.get(vocab_key):
            with open(os.path.join(model_dir, tok[vocab_key]), encoding="utf-8") as f:
                vocab = json.load(f)
            out = [None] * len(vocab)
            for piece, i in vocab.items():
                out[i] = piece
            return out
        import sentencepiece as spm
        sp = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, tok[spm_key]))
        return [sp.id_to_piece(i) for i in range(sp.get_piece_size())]

    return pieces("source_vocab", "source_spm"), pieces("target_vocab", "target_spm")


def build_spec(meta, w, common_spec, transformer_spec):
    c = meta["config"]
    activation = {"relu": common_spec.Activation.RELU, "gelu": common_spec.Activation.GELU,
                  "swish": common_spec.Activation.SWISH}[c["activation"]]
    pre_norm = c["norm"] == "pre"
    spec = transformer_spec.TransformerSpec.from_config(
        (c["encoder_layers"], c["decoder_layers"]), c["n_heads"], pre_norm=pre_norm,
        no_final_norm=pre_norm and not c["final_norm"], activation=activation)
    if c["norm"] == "post" and c["final_norm"]:
        sys.exit("ct2_convert: post-norm with a final norm has no CTranslate2 spec")

    def linear(lin, prefix, bias=True):
        lin.weight = w[prefix + ".weight"]
        if bias:
            lin.bias = w[prefix + ".bias"]

    def norm(ln, prefix):
        ln.gamma, ln.beta = w[prefix + ".weight"], w[prefix + ".bias"]

    def fused(lin, prefix, parts):
        lin.weight = np.concatenate([w[f"{prefix}.{p}.weight"] for p in parts])
        lin.bias = np.concatenate([w[f"{prefix}.{p}.bias"] for p in parts])

    table = None
    if c["positions"] != "table":
        table = sinusoid_table(c["positions"], c["max_positions"], c["d_model"])
    embed_src = w["encoder.embed_tokens"]
    embed_tgt = embed_src if c["shared_embeddings"] else w["decoder.embed_tokens"]
    for stack, side in (("encoder", spec.encoder), ("decoder", spec.decoder)):
        embeddings = side.embeddings[0] if isinstance(side.embeddings, list) else side.embeddings
        embeddings.weight = embed_src if stack == "encoder" else embed_tgt
        side.scale_embeddings = bool(c["scale_embedding"])
        side.position_encodings.encodings = table if table is not None else w[f"{stack}.positions"]
        if pre_norm and c["final_norm"]:
            norm(side.layer_norm, f"{stack}.final_norm")
        for n, layer in enumerate(side.layer):
            p = f"{stack}.layers.{n}"
            fused(layer.self_attention.linear[0], f"{p}.self_attn", ("q_proj", "k_proj", "v_proj"))
            linear(layer.self_attention.linear[1], f"{p}.self_attn.out_proj")
            norm(layer.self_attention.layer_norm, f"{p}.self_attn_norm")
            if stack == "decoder":
                linear(layer.attention.linear[0], f"{p}.cross_attn.q_proj")
                fused(layer.attention.linear[1], f"{p}.cross_attn", ("k_proj", "v_proj"))
                linear(layer.attention.linear[2], f"{p}.cross_attn.out_proj")
                norm(layer.attention.layer_norm, f"{p}.cross_attn_norm")
            linear(layer.ffn.linear_0, f"{p}.fc1")
            linear(layer.ffn.linear_1, f"{p}.fc2")
            norm(layer.ffn.layer_norm, f"{p}.ffn_norm")
    spec.decoder.projection.weight = embed_tgt if c["tied_output"] else w["output.weight"]
    if c["output_bias"]:
        spec.decoder.projection.bias = w["output.bias"]
    return spec


def convert(model_dir, out_dir, quantization=None, ct2_root="/opt/ctranslate2"):
    common_spec, transformer_spec = import_ct2_specs(ct2_root)
    meta, w = read_weights(model_dir)
    spec = build_spec(meta, w, common_spec, transformer_spec)
    src, tgt = vocabularies(model_dir, meta)
    spec.register_source_vocabulary(src)
    spec.register_target_vocabulary(tgt)
    t = meta["tokens"]
    spec.config.unk_token = tgt[t["unk"]]
    spec.config.eos_token = tgt[t["eos"]]
    spec.config.bos_token = tgt[t["decoder_start"]]
    spec.config.decoder_start_token = tgt[t["decoder_start"]]
    spec.config.add_source_eos = False   # the bench's token files carry the EOS nmt appends
    spec.config.layer_norm_epsilon = meta["config"]["layer_norm_eps"]
    spec.validate()
    spec.optimize(quantization=quantization)
    os.makedirs(out_dir, exist_ok=True)
    spec.save(out_dir)
    return out_dir


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--quantization", default=None, help="CTranslate2 quantization, e.g. int8 (default: float32)")
    ap.add_argument("--ct2", default="/opt/ctranslate2", help="CTranslate2 install prefix")
    a = ap.parse_args()
    convert(a.model_dir, a.out_dir, a.quantization or "float32", a.ct2)


if __name__ == "__main__":
    main()
