"""The fixtures' random weights (tools/make_fixtures.py), with the EOS "clock" that makes outputs end at
varied lengths.
"""
import math
import os
import sys
from collections import OrderedDict

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import expected_tensors  # noqa: E402
import reference as ref  # noqa: E402


def random_tensors(config, seed, embed_std, zero_row=None, gains=None, bias_std=0.5, out_std=3.0):
    """Random weights, scaled so that activations stay O(1) and logits are fairly peaked.
    gains: {"fc2": x, "cross_attn": y, ...} scales the decoder's sublayer output weights. With tied
    embeddings and gain 1, the residual stream and the (per sentence constant) cross-attention context
    dominate, and the model repeats one token: a strong FFN makes the next token a random function of
    the last one instead."""
    gains = gains or {}
    rng = np.random.default_rng(seed)
    d = config["d_model"]
    out = OrderedDict()
    for name, shape in expected_tensors(config).items():
        if name.endswith("embed_tokens"):
            std = embed_std / math.sqrt(d) if config["scale_embedding"] else embed_std
            t = rng.normal(0.0, std, shape)
            if config["tied_output"]:     # equal row norms: no "hub" tokens that attract every output
                t *= std * math.sqrt(d) / np.linalg.norm(t, axis=1, keepdims=True)
            if zero_row is not None:
                t[zero_row] = 0.0        # pad = decoder start in OPUS-MT: an all-zero row
        elif name.endswith("positions"):
            t = rng.normal(0.0, 0.5, shape)
        elif name == "output.weight":
            t = rng.normal(0.0, out_std / math.sqrt(d), shape)
        elif name == "output.bias":
            t = rng.normal(0.0, bias_std, shape)
        elif "norm" in name and name.endswith(".weight"):
            t = 1.0 + rng.normal(0.0, 0.1, shape)
        elif "norm" in name:
            t = rng.normal(0.0, 0.1, shape)
        elif name.endswith(".weight"):
            t = rng.normal(0.0, 1.0 / math.sqrt(shape[1]), shape)
            for part, gain in gains.items():
                if name.startswith("decoder.") and f".{part}." in name and "_norm" not in name and \
                        (name.endswith("out_proj.weight") or name.endswith("fc2.weight")):
                    t *= gain
        else:
            t = rng.normal(0.0, 0.1, shape)
        out[name] = t.astype(np.float32)
    return out


# EOS is driven by a "clock": one feature column whose positional value grows with the decoder position
# (a slow sinusoid, or a ramp written into a learned table). Token embeddings and the decoder's sublayer
# outputs are zeroed in that column, so the column reaches the output layer nearly untouched, and the EOS
# output row gets weight alpha there: EOS becomes likelier step by step and fires at a point that depends
# on the content. Short sources then hit their max length, longer ones end naturally. The EOS logit's
# offset beta is the output bias, or (no output bias) the EOS row's weight on a constant column made by the
# decoder's final LayerNorm (weight 0, bias 1 there).
CLOCK_COLUMN = {"sinusoidal-concat": 6, "sinusoidal-marian": 6, "sinusoidal-interleaved": 12, "table": 6}
CONSTANT_COLUMN = 5


def add_clock(tensors, config):
    col = CLOCK_COLUMN[config["positions"]]
    t = OrderedDict((k, v.copy()) for k, v in tensors.items())
    for name in t:
        if name.endswith("embed_tokens"):
            t[name][:, col] = 0.0
        elif name.startswith("decoder.layers.") and (".out_proj." in name or ".fc2." in name):
            t[name][col] = 0.0      # weight row / bias entry: sublayers do not write the clock column
    if config["positions"] == "table":
        steps = np.arange(config["max_positions"], dtype=np.float64)
        t["decoder.positions"][:, col] = (2.0 * np.sin(steps / 32.0)).astype(np.float32)
    if not config["output_bias"]:
        t["decoder.final_norm.weight"][CONSTANT_COLUMN] = 0.0
        t["decoder.final_norm.bias"][CONSTANT_COLUMN] = 1.0
    return t


def output_row(config):
    """The tensor whose EOS row scores EOS."""
    if not config["tied_output"]:
        return "output.weight"
    return "encoder.embed_tokens" if config["shared_embeddings"] else "decoder.embed_tokens"


def apply_eos_knob(tensors, config, tokens, knob):
    """knob = (alpha, beta): clock weight of the EOS output row, offset of the EOS logit."""
    alpha, beta = knob
    t = OrderedDict((k, v.copy()) for k, v in tensors.items())
    eos = tokens["eos"]
    t[output_row(config)][eos, CLOCK_COLUMN[config["positions"]]] = alpha
    if config["output_bias"]:
        t["output.bias"][eos] = beta
    else:
        t["output.weight"][eos, CONSTANT_COLUMN] = beta
    return t


def rounded(tensors, dtype):
    """The float32 values the checkpoint will hold."""
    if dtype == "f16":
        return OrderedDict((k, v.astype(np.float16).astype(np.float32)) for k, v in tensors.items())
    return tensors


def torch_model(config, tokens, tensors, overrides=None):
    return ref.Model(dict(config, **(overrides or {})), tokens, {k: torch.from_numpy(v) for k, v in tensors.items()})
