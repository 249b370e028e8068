"""The opus fixture in the Hugging Face and native Marian layouts (tools/make_fixtures.py).
"""
import json
import os
import re
import shutil
import struct
from collections import OrderedDict

import numpy as np


# ----------------------------------------------------------------------------------------------
# Hugging Face and native Marian layouts of the opus fixture

def hf_tensors(t, config):
    """Our names -> Hugging Face MarianMTModel state dict names."""
    out = OrderedDict()
    out["model.shared.weight"] = t["encoder.embed_tokens"]
    out["final_logits_bias"] = t["output.bias"][None, :]
    rename = [("self_attn_norm", "self_attn_layer_norm"), ("cross_attn_norm", "encoder_attn_layer_norm"),
              ("ffn_norm", "final_layer_norm"), ("cross_attn.", "encoder_attn.")]
    for name, v in t.items():
        if ".layers." in name:
            new = name
            for a, b in rename:
                new = new.replace(a, b)
            out["model." + new] = v
    return out


def write_safetensors(path, tensors):
    """safetensors: u64 LE header length, JSON header (padded with spaces to 8 bytes), raw F32 data."""
    header, offset = OrderedDict([("__metadata__", {"format": "pt"})]), 0
    for name, v in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(v.shape), "data_offsets": [offset, offset + v.nbytes]}
        offset += v.nbytes
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for v in tensors.values():
            f.write(np.ascontiguousarray(v, dtype="<f4").tobytes())


def write_hf(out, t, config, tokens, decoding, vocab, en_model, de_model):
    os.makedirs(out, exist_ok=True)
    V, pad = config["tgt_vocab_size"], tokens["pad"]
    cfg = OrderedDict([
        ("_name_or_path", "nmt-fixture-opus"), ("activation_dropout", 0.0),
        ("activation_function", config["activation"]), ("architectures", ["MarianMTModel"]),
        ("attention_dropout", 0.0), ("bad_words_ids", [[pad]]), ("bos_token_id", 0),
        ("classif_dropout", 0.0), ("classifier_dropout", 0.0), ("d_model", config["d_model"]),
        ("decoder_attention_heads", config["n_heads"]), ("decoder_ffn_dim", config["ffn_dim"]),
        ("decoder_layerdrop", 0.0), ("decoder_layers", config["decoder_layers"]),
        ("decoder_start_token_id", tokens["decoder_start"]), ("decoder_vocab_size", V), ("dropout", 0.1),
        ("encoder_attention_heads", config["n_heads"]), ("encoder_ffn_dim", config["ffn_dim"]),
        ("encoder_layerdrop", 0.0), ("encoder_layers", config["encoder_layers"]),
        ("eos_token_id", tokens["eos"]), ("forced_eos_token_id", tokens["eos"]), ("init_std", 0.02),
        ("is_encoder_decoder", True), ("max_length", decoding["max_length"]),
        ("max_position_embeddings", config["max_positions"]), ("model_type", "marian"),
        ("normalize_before", False), ("normalize_embedding", False), ("num_beams", decoding["beam_size"]),
        ("num_hidden_layers", config["encoder_layers"]), ("pad_token_id", pad),
        ("scale_embedding", config["scale_embedding"]), ("share_encoder_decoder_embeddings", True),
        ("static_position_embeddings", True), ("torch_dtype", "float32"),
        ("transformers_version", "4.34.0"), ("use_cache", True), ("vocab_size", V)])
    gen = OrderedDict([("bad_words_ids", [[pad]]), ("bos_token_id", 0),
                       ("decoder_start_token_id", tokens["decoder_start"]), ("eos_token_id", tokens["eos"]),
                       ("forced_eos_token_id", tokens["eos"]), ("max_length", decoding["max_length"]),
                       ("num_beams", decoding["beam_size"]), ("pad_token_id", pad),
                       ("renormalize_logits", decoding["renormalize"]), ("transformers_version", "4.34.0")])
    tok_cfg = OrderedDict([("eos_token", "</s>"), ("model_max_length", config["max_positions"]),
                           ("pad_token", "<pad>"), ("separate_vocabs", False), ("source_lang", "en"),
                           ("sp_model_kwargs", {}), ("target_lang", "de"), ("tokenizer_class", "MarianTokenizer"),
                           ("unk_token", "<unk>")])
    for name, obj in (("config.json", cfg), ("generation_config.json", gen), ("tokenizer_config.json", tok_cfg)):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2)
            f.write("\n")
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=2)
    shutil.copyfile(en_model, os.path.join(out, "source.spm"))
    shutil.copyfile(de_model, os.path.join(out, "target.spm"))
    write_safetensors(os.path.join(out, "model.safetensors"), hf_tensors(t, config))


def marian_tensors(t, config, model_yml):
    """Our names -> native Marian .npz names: [in, out] weights, [1, n] vectors, 1-based layers, no pad row."""
    out = OrderedDict()
    V = config["tgt_vocab_size"]
    out["Wemb"] = t["encoder.embed_tokens"][: V - 1]
    out["decoder_ff_logit_out_b"] = t["output.bias"][None, : V - 1]

    def attention(ours, theirs):
        for p, m in (("q_proj", "q"), ("k_proj", "k"), ("v_proj", "v"), ("out_proj", "o")):
            out[f"{theirs}_W{m}"] = t[f"{ours}.{p}.weight"].T.copy()
            out[f"{theirs}_b{m}"] = t[f"{ours}.{p}.bias"][None, :]

    def norm(ours, theirs):
        out[f"{theirs}_scale"] = t[f"{ours}.weight"][None, :]
        out[f"{theirs}_bias"] = t[f"{ours}.bias"][None, :]

    for stack, n_layers in (("encoder", config["encoder_layers"]), ("decoder", config["decoder_layers"])):
        for n in range(n_layers):
            o, m = f"{stack}.layers.{n}", f"{stack}_l{n + 1}"
            attention(f"{o}.self_attn", f"{m}_self")
            norm(f"{o}.self_attn_norm", f"{m}_self_Wo_ln")
            if stack == "decoder":
                attention(f"{o}.cross_attn", f"{m}_context")
                norm(f"{o}.cross_attn_norm", f"{m}_context_Wo_ln")
            out[f"{m}_ffn_W1"] = t[f"{o}.fc1.weight"].T.copy()
            out[f"{m}_ffn_b1"] = t[f"{o}.fc1.bias"][None, :]
            out[f"{m}_ffn_W2"] = t[f"{o}.fc2.weight"].T.copy()
            out[f"{m}_ffn_b2"] = t[f"{o}.fc2.bias"][None, :]
            norm(f"{o}.ffn_norm", f"{m}_ffn_ffn_ln")
    out["special:model.yml"] = np.frombuffer(model_yml.encode() + b"\0", dtype=np.int8)
    return out


def yaml_key(piece):
    """A vocab.yml key: plain when unambiguous, else double-quoted (JSON escapes are valid YAML)."""
    special = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}
    if re.fullmatch(r"[^\W\d_][\w\u2581]*|\u2581[\w\u2581]*", piece) and piece.lower() not in special:
        return piece
    return json.dumps(piece, ensure_ascii=False)


def write_marian(out, t, config, decoding, vocab, en_model, de_model):
    os.makedirs(out, exist_ok=True)
    V = config["tgt_vocab_size"]
    model_yml = "\n".join([
        "type: transformer", "dim-vocabs:", f"  - {V - 1}", f"  - {V - 1}",
        f"dim-emb: {config['d_model']}", f"enc-depth: {config['encoder_layers']}",
        f"dec-depth: {config['decoder_layers']}", f"transformer-heads: {config['n_heads']}",
        f"transformer-dim-ffn: {config['ffn_dim']}", "transformer-ffn-depth: 2",
        f"transformer-ffn-activation: {config['activation']}", 'transformer-preprocess: ""',
        "transformer-postprocess: dan", "transformer-postprocess-emb: d",
        "transformer-train-position-embeddings: false", "tied-embeddings-all: true",
        "tied-embeddings-src: false", "tied-embeddings: false", "right-left: false",
        "version: nmt-fixture"]) + "\n"
    np.savez(os.path.join(out, "model.npz"), **marian_tensors(t, config, model_yml))
    with open(os.path.join(out, "decoder.yml"), "w") as f:
        f.write("models:\n  - model.npz\nvocabs:\n  - vocab.yml\n  - vocab.yml\n"
                f"beam-size: {decoding['beam_size']}\nnormalize: 1.0\nword-penalty: 0\nmini-batch: 16\n"
                "maxi-batch: 100\nmaxi-batch-sort: src\nrelative-paths: true\n")
    with open(os.path.join(out, "vocab.yml"), "w", encoding="utf-8") as f:
        for piece, i in vocab.items():
            if piece != "<pad>":
                f.write(f"{yaml_key(piece)}: {i}\n")
    try:   # the YAML must read back as the same mapping
        import yaml
        with open(os.path.join(out, "vocab.yml"), encoding="utf-8") as f:
            back = yaml.safe_load(f)
        assert back == {p: i for p, i in vocab.items() if p != "<pad>"}, "vocab.yml does not round-trip"
    except ImportError:
        pass
    shutil.copyfile(en_model, os.path.join(out, "source.spm"))
    shutil.copyfile(de_model, os.path.join(out, "target.spm"))
