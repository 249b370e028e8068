#!/usr/bin/python3
"""Write and read nmt checkpoints, format v1 (docs/checkpoint.md).

A checkpoint is a directory holding `model.json` (description + tensor table) and `weights.bin`
(little-endian tensors, each at a 64-byte aligned offset, f32 or f16). The writer validates the
tensor set against the config before writing anything, so a bad checkpoint is never produced; the
reader validates everything the C++ loader validates (fields, names, shapes, offsets, size, CRC-32).

  write_checkpoint(out_dir, config, tokens, decoding, tokenizer, tensors, dtype="f32")
  meta, tensors = read_checkpoint(model_dir)      # tensors: name -> float32 numpy array
  source, target = model_languages(model_dir)
"""
import json
import math
import re
import os
import zlib
from collections import OrderedDict

import numpy as np

FORMAT = "nmt-checkpoint"
VERSION = 1
ALIGN = 64
WEIGHTS_FILE = "weights.bin"

CONFIG_KEYS = ["d_model", "n_heads", "encoder_layers", "decoder_layers", "ffn_dim", "activation", "norm",
               "final_norm", "layer_norm_eps", "positions", "max_positions", "scale_embedding",
               "shared_embeddings", "tied_output", "output_bias", "src_vocab_size", "tgt_vocab_size"]
TOKEN_KEYS = ["pad", "unk", "eos", "decoder_start"]
DECODING_KEYS = ["beam_size", "length_penalty", "max_length_a", "max_length_b", "max_length", "ban_unk",
                 "renormalize"]
# alignment_layer: the decoder layer --alignment reads (absent: the last); the loop guards (docs/search.md),
# written only when on; beam_rules (one of BEAM_RULES), written only when not the first.
DECODING_OPTIONAL = ["alignment_layer", "repetition_penalty", "no_repeat_ngram_size", "beam_rules"]
BEAM_RULES = ("hugging_face", "ctranslate2")
TOKENIZER_KEYS = ["source_spm", "target_spm", "source_vocab", "target_vocab", "add_eos"]
TOP_KEYS = ["format", "version", "config", "tokens", "decoding", "tokenizer", "weights", "tensors"]
LANGUAGE_KEYS = ["source_lang", "target_lang"]  # optional: BCP 47 tags, absent or null when unknown
LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$")

ACTIVATIONS = ("relu", "gelu", "swish")
NORMS = ("post", "pre")
POSITIONS = ("sinusoidal-interleaved", "sinusoidal-concat", "sinusoidal-marian", "table")
DTYPES = {"f32": np.dtype("<f4"), "f16": np.dtype("<f2")}


class CheckpointError(Exception):
    pass


def sinusoid_table(kind, n_positions, d):
    """The sinusoid positions [n_positions, d] as models/positions.cc computes them: each dimension pair's
    timescale in double, sin and cos in double, rounded to float32 once."""
    half = d // 2
    k = np.arange(half, dtype=np.float64)
    p = np.arange(n_positions, dtype=np.float64)[:, None]
    if kind == "sinusoidal-marian":  # native Marian: timescales spaced by log(10000) / (d/2 - 1)
        increment = math.log(10000.0) / (half - 1) if half > 1 else 0.0
        angle = p * np.exp(-k * increment)[None, :]
    elif kind in ("sinusoidal-interleaved", "sinusoidal-concat"):  # the paper's; Hugging Face Marian's
        angle = p / np.power(10000.0, 2.0 * k / d)[None, :]
    else:
        raise ValueError(f"no sinusoid table for positions '{kind}'")
    s, c = np.sin(angle).astype(np.float32), np.cos(angle).astype(np.float32)
    table = np.empty((n_positions, d), np.float32)
    if kind == "sinusoidal-interleaved":  # PE[p][2i] = sin, PE[p][2i+1] = cos
        table[:, 0::2], table[:, 1::2] = s, c
    else:  # sin half, then cos half
        table[:, :half], table[:, half:] = s, c
    return table


def _check_keys(where, obj, keys, optional=()):
    """Exactly `keys` must be present (and any of `optional`): a missing or an unknown key is an error."""
    if not isinstance(obj, dict):
        raise CheckpointError(f"{where}: expected an object")
    missing = [k for k in keys if k not in obj]
    unknown = [k for k in obj if k not in keys and k not in optional]
    if missing:
        raise CheckpointError(f"{where}: missing field '{missing[0]}'")
    if unknown:
        raise CheckpointError(f"{where}: unknown field '{unknown[0]}'")


def validate_config(config):
    _check_keys("config", config, CONFIG_KEYS)
    c = config
    if c["activation"] not in ACTIVATIONS:
        raise CheckpointError(f"config: activation '{c['activation']}' is not one of {ACTIVATIONS}")
    if c["norm"] not in NORMS:
        raise CheckpointError(f"config: norm '{c['norm']}' is not one of {NORMS}")
    if c["positions"] not in POSITIONS:
        raise CheckpointError(f"config: positions '{c['positions']}' is not one of {POSITIONS}")
    if c["d_model"] % c["n_heads"] != 0:
        raise CheckpointError(f"config: d_model {c['d_model']} is not a multiple of n_heads {c['n_heads']}")
    if c["positions"] != "table" and c["d_model"] % 2 != 0:
        raise CheckpointError("config: sinusoidal positions need an even d_model")
    if c["shared_embeddings"] and c["src_vocab_size"] != c["tgt_vocab_size"]:
        raise CheckpointError("config: shared_embeddings needs src_vocab_size == tgt_vocab_size")


def expected_tensors(config):
    """name -> shape of every tensor a model with this config must have (and no others)."""
    c = config
    d, f = c["d_model"], c["ffn_dim"]
    out = OrderedDict()
    out["encoder.embed_tokens"] = [c["src_vocab_size"], d]
    if not c["shared_embeddings"]:
        out["decoder.embed_tokens"] = [c["tgt_vocab_size"], d]
    if c["positions"] == "table":
        out["encoder.positions"] = [c["max_positions"], d]
        out["decoder.positions"] = [c["max_positions"], d]
    if not c["tied_output"]:
        out["output.weight"] = [c["tgt_vocab_size"], d]
    if c["output_bias"]:
        out["output.bias"] = [c["tgt_vocab_size"]]

    def attention(prefix):
        for p in ("q_proj", "k_proj", "v_proj", "out_proj"):
            out[f"{prefix}.{p}.weight"] = [d, d]
            out[f"{prefix}.{p}.bias"] = [d]

    def norm(prefix):
        out[f"{prefix}.weight"] = [d]
        out[f"{prefix}.bias"] = [d]

    for stack, n_layers in (("encoder", c["encoder_layers"]), ("decoder", c["decoder_layers"])):
        for n in range(n_layers):
            p = f"{stack}.layers.{n}"
            attention(f"{p}.self_attn")
            norm(f"{p}.self_attn_norm")
            if stack == "decoder":
                attention(f"{p}.cross_attn")
                norm(f"{p}.cross_attn_norm")
            out[f"{p}.fc1.weight"] = [f, d]
            out[f"{p}.fc1.bias"] = [f]
            out[f"{p}.fc2.weight"] = [d, f]
            out[f"{p}.fc2.bias"] = [d]
            norm(f"{p}.ffn_norm")
        if c["final_norm"]:
            norm(f"{stack}.final_norm")
    return out


def _shape_str(shape):
    return "[" + ",".join(str(int(s)) for s in shape) + "]"


def validate_tensor_shapes(config, shapes, where="model.json"):
    """shapes: name -> shape. Raises on a missing, unknown or wrongly shaped tensor."""
    expected = expected_tensors(config)
    for name, shape in shapes.items():
        if name not in expected:
            raise CheckpointError(f"{where}: unknown tensor '{name}'")
        if list(shape) != expected[name]:
            raise CheckpointError(f"{where}: tensor '{name}': expected shape {_shape_str(expected[name])}, "
                                  f"got {_shape_str(shape)}")
    for name in expected:
        if name not in shapes:
            raise CheckpointError(f"{where}: missing tensor '{name}'")


def _format_model_json(meta):
    """Pretty JSON with one line per tensor (the table is the long part)."""
    head = {k: v for k, v in meta.items() if k != "tensors"}
    text = json.dumps(head, indent=2)
    rows = ",\n".join("    " + json.dumps(t) for t in meta["tensors"])
    return text[:-2] + ',\n  "tensors": [\n' + rows + "\n  ]\n}\n"


def validate_languages(meta):
    for key in LANGUAGE_KEYS:
        tag = meta.get(key)
        if tag is not None and not (isinstance(tag, str) and LANGUAGE_TAG.match(tag)):
            raise CheckpointError(f"{key}: expected a language tag such as \"en\" or \"pt-BR\", got {tag!r}")


def model_languages(model_dir):
    """(source_lang, target_lang) that model_dir/model.json names; SystemExit naming the folder if either is absent."""
    with open(os.path.join(model_dir, "model.json"), encoding="utf-8") as f:
        meta = json.load(f)
    if not meta.get("source_lang") or not meta.get("target_lang"):
        raise SystemExit(f"{model_dir}/model.json names no source_lang/target_lang")
    return meta["source_lang"], meta["target_lang"]


def write_checkpoint(out_dir, config, tokens, decoding, tokenizer, tensors, dtype="f32",
                     weights_file=WEIGHTS_FILE, source_lang=None, target_lang=None):
    """Write `model.json` + `weights_file` into out_dir (created if needed).

    tensors: ordered mapping name -> numpy array (any float dtype; converted to `dtype`).
    The tokenizer files named in `tokenizer` must be copied into out_dir by the caller.
    Returns the model.json dict.
    """
    if dtype not in DTYPES:
        raise CheckpointError(f"dtype '{dtype}' is not one of {list(DTYPES)}")
    validate_config(config)
    _check_keys("tokens", tokens, TOKEN_KEYS)
    _check_keys("decoding", decoding, DECODING_KEYS, DECODING_OPTIONAL)
    if decoding.get("beam_rules", BEAM_RULES[0]) not in BEAM_RULES:
        raise CheckpointError(f"decoding.beam_rules must be one of {list(BEAM_RULES)}")
    _check_keys("tokenizer", tokenizer, TOKENIZER_KEYS)
    validate_tensor_shapes(config, {k: list(v.shape) for k, v in tensors.items()})

    np_dtype = DTYPES[dtype]
    table, blob = [], bytearray()
    for name, array in tensors.items():
        data = np.ascontiguousarray(np.asarray(array, dtype=np.float32).astype(np_dtype))
        if not np.all(np.isfinite(data)):
            raise CheckpointError(f"tensor '{name}': not finite in {dtype}")
        blob.extend(b"\0" * (-len(blob) % ALIGN))  # pad to the next 64-byte boundary
        table.append({"name": name, "dtype": dtype, "shape": [int(s) for s in data.shape],
                      "offset": len(blob), "nbytes": data.nbytes})
        blob.extend(data.tobytes())

    languages = [(k, v) for k, v in (("source_lang", source_lang), ("target_lang", target_lang)) if v]
    validate_languages(dict(languages))
    meta = OrderedDict([
        ("format", FORMAT), ("version", VERSION), *languages,
        ("config", config), ("tokens", tokens), ("decoding", decoding), ("tokenizer", tokenizer),
        ("weights", {"file": weights_file, "size": len(blob), "crc32": "%08x" % (zlib.crc32(blob) & 0xFFFFFFFF)}),
        ("tensors", table),
    ])
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, weights_file), "wb") as f:
        f.write(blob)
    with open(os.path.join(out_dir, "model.json"), "w", encoding="utf-8") as f:
        f.write(_format_model_json(meta))
    return meta


def read_checkpoint(model_dir, check_crc=True):
    """Validate and load a checkpoint dir. Returns (meta dict, OrderedDict name -> float32 array)."""
    path = os.path.join(model_dir, "model.json")
    where = path
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise CheckpointError(f"{where}: {e}")
    try:
        _check_keys("top level", {k: v for k, v in meta.items() if k not in LANGUAGE_KEYS}, TOP_KEYS)
        validate_languages(meta)
        if meta["format"] != FORMAT or meta["version"] != VERSION:
            raise CheckpointError(f"not an {FORMAT} version {VERSION} (format '{meta['format']}', "
                                  f"version {meta['version']})")
        validate_config(meta["config"])
        _check_keys("tokens", meta["tokens"], TOKEN_KEYS)
        _check_keys("decoding", meta["decoding"], DECODING_KEYS, DECODING_OPTIONAL)
        _check_keys("tokenizer", meta["tokenizer"], TOKENIZER_KEYS)
        _check_keys("weights", meta["weights"], ["file", "size", "crc32"])
        table = meta["tensors"]
        validate_tensor_shapes(meta["config"], {t["name"]: t["shape"] for t in table})
    except CheckpointError as e:
        raise CheckpointError(f"{where}: {e}" if not str(e).startswith(where) else str(e))

    w = meta["weights"]
    blob_path = os.path.join(model_dir, w["file"])
    with open(blob_path, "rb") as f:
        blob = f.read()
    if len(blob) != w["size"]:
        raise CheckpointError(f"{blob_path}: size {len(blob)} bytes, model.json says {w['size']}")
    if check_crc:
        crc = "%08x" % (zlib.crc32(blob) & 0xFFFFFFFF)
        if crc != w["crc32"]:
            raise CheckpointError(f"{blob_path}: CRC-32 {crc}, model.json says {w['crc32']}")

    tensors, spans = OrderedDict(), []
    for t in table:
        _check_keys(f"{where}: tensor entry", t, ["name", "dtype", "shape", "offset", "nbytes"])
        name = t["name"]
        if t["dtype"] not in DTYPES:
            raise CheckpointError(f"{where}: tensor '{name}': dtype '{t['dtype']}' is not f32 or f16")
        np_dtype = DTYPES[t["dtype"]]
        count = int(np.prod(t["shape"], dtype=np.int64))
        if t["nbytes"] != count * np_dtype.itemsize:
            raise CheckpointError(f"{where}: tensor '{name}': nbytes {t['nbytes']} != {count * np_dtype.itemsize}")
        if t["offset"] % ALIGN != 0:
            raise CheckpointError(f"{where}: tensor '{name}': offset {t['offset']} is not 64-byte aligned")
        if t["offset"] + t["nbytes"] > len(blob):
            raise CheckpointError(f"{where}: tensor '{name}': ends at {t['offset'] + t['nbytes']}, "
                                  f"past the blob's {len(blob)} bytes")
        if name in tensors:
            raise CheckpointError(f"{where}: tensor '{name}' listed twice")
        spans.append((t["offset"], t["offset"] + t["nbytes"], name))
        data = np.frombuffer(blob, dtype=np_dtype, count=count, offset=t["offset"])
        tensors[name] = data.reshape(t["shape"]).astype(np.float32)
    spans.sort()
    for (b0, e0, n0), (b1, e1, n1) in zip(spans, spans[1:]):
        if b1 < e0:
            raise CheckpointError(f"{where}: tensors '{n0}' and '{n1}' overlap")
    return meta, tensors


if __name__ == "__main__":
    import sys
    m, ts = read_checkpoint(sys.argv[1])
    print(json.dumps(m["config"]))
    print(f"{len(ts)} tensors, {sum(t.size for t in ts.values())} parameters: OK")
