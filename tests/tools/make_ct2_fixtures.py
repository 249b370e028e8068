#!/usr/bin/python3
"""CTranslate2 model directories and their golden outputs for tests/unit/test_convert_ct2.cc.

  make_ct2_fixtures.py OUT_DIR [--ct2 /opt/ct2]

Built from the OPUS-MT fixture (tests/fixtures/opus/model, d_model 32) through CTranslate2's own
TransformerSpec (its Python specs; only its compiled library is needed, for the goldens):
  marian/       as ct2-transformers-converter writes a MarianMT model: post-norm, swish, the pad row
                removed, decoder/start_from_zero_embedding, Hugging Face's sinusoid table stored, float32.
  marian-int8/  the same quantized by CTranslate2 (int8, one scale per row).
  prenorm/      an OpenNMT-py-style variant: pre-norm with final norms, gelu, separate source and target
                embeddings, an untied projection without bias, CTranslate2's own sinusoid, float16
                weights, vocabularies as .txt files.
  prenorm-int8/ the same quantized to int8 (json vocabularies).
golden.json: the source pieces of the opus fixture's sentences and CTranslate2's output pieces, greedy and
beam 4, compute_type float32 (tools/ct2_driver.cc), max_decoding_length MAX_DECODING.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import ct2_convert  # noqa: E402
from checkpoint import sinusoid_table  # noqa: E402

OPUS = os.path.join(ROOT, "tests", "fixtures", "opus")
MAX_DECODING = 12  # CTranslate2's max_decoding_length; nmt's max length is one more (its EOS)


def opus_weights():
    meta, w = ct2_convert.read_weights(os.path.join(OPUS, "model"))
    with open(os.path.join(OPUS, "model", "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    pieces = [None] * len(vocab)
    for piece, i in vocab.items():
        pieces[i] = piece
    return meta, w, pieces


def marian_spec(specs, meta, w, pieces):
    """What ct2-transformers-converter's MarianMTLoader makes of the Hugging Face model."""
    common_spec, transformer_spec = specs
    c = meta["config"]
    pad = meta["tokens"]["pad"]
    assert pad == len(pieces) - 1, "the converter drops the last row: pad must be it"
    spec = transformer_spec.TransformerSpec.from_config(
        (c["encoder_layers"], c["decoder_layers"]), c["n_heads"], pre_norm=False,
        activation=common_spec.Activation.SWISH)
    w = dict(w)
    table = sinusoid_table("sinusoidal-concat", c["max_positions"], c["d_model"]).astype(np.float32)
    w["encoder.positions"] = w["decoder.positions"] = table
    w["encoder.embed_tokens"] = w["encoder.embed_tokens"][:-1]
    w["output.bias"] = w["output.bias"][:-1]
    meta = json.loads(json.dumps(meta))
    meta["config"]["positions"] = "table"
    spec = ct2_convert.build_spec(meta, w, common_spec, transformer_spec)
    spec.decoder.start_from_zero_embedding = True
    vocab = pieces[:-1]
    spec.register_source_vocabulary(vocab)
    spec.register_target_vocabulary(vocab)
    spec.config.eos_token = "</s>"
    spec.config.unk_token = "<unk>"
    spec.config.bos_token = "<s>"
    spec.config.decoder_start_token = "</s>"
    spec.config.layer_norm_epsilon = c["layer_norm_eps"]
    return spec, vocab


def prenorm_spec(specs, meta, w, pieces):
    """Pre-norm with final norms, gelu, separate embeddings, untied projection without bias."""
    common_spec, transformer_spec = specs
    c = meta["config"]
    rng = np.random.default_rng(47)
    d = c["d_model"]
    spec = transformer_spec.TransformerSpec.from_config(
        (c["encoder_layers"], c["decoder_layers"]), c["n_heads"], pre_norm=True,
        activation=common_spec.Activation.GELU, alignment_layer=0, alignment_heads=1)
    w = dict(w)
    for stack in ("encoder", "decoder"):
        w[f"{stack}.final_norm.weight"] = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
        w[f"{stack}.final_norm.bias"] = (0.1 * rng.standard_normal(d)).astype(np.float32)
    emb = w["encoder.embed_tokens"]
    w["decoder.embed_tokens"] = (emb + 0.05 * rng.standard_normal(emb.shape)).astype(np.float32)
    w["output.weight"] = (emb + 0.05 * rng.standard_normal(emb.shape)).astype(np.float32)
    meta = json.loads(json.dumps(meta))
    meta["config"].update(norm="pre", final_norm=True, shared_embeddings=False, tied_output=False,
                          output_bias=False, activation="gelu")
    spec = ct2_convert.build_spec(meta, w, common_spec, transformer_spec)
    for side in (spec.encoder, spec.decoder):  # CTranslate2 computes its own sinusoid
        del side.position_encodings
    spec.register_source_vocabulary(pieces)
    spec.register_target_vocabulary(pieces)
    spec.config.eos_token = "</s>"
    spec.config.unk_token = "<unk>"
    spec.config.bos_token = "</s>"
    spec.config.decoder_start_token = "</s>"
    spec.config.add_source_eos = True
    spec.config.layer_norm_epsilon = c["layer_norm_eps"]
    return spec, pieces


def save(spec, out, quantization, txt_vocab=False):
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    spec.validate()
    spec.optimize(quantization=quantization)
    spec.save(out)
    for name in ("source.spm", "target.spm"):
        shutil.copy(os.path.join(OPUS, "model", name), os.path.join(out, name))
    if txt_vocab:
        for name in os.listdir(out):
            if name.endswith("vocabulary.json"):
                with open(os.path.join(out, name), encoding="utf-8") as f:
                    tokens = json.load(f)
                os.remove(os.path.join(out, name))
                # CTranslate2 also reads one token a line; the shared file becomes source + target.
                targets = ["source_vocabulary.txt", "target_vocabulary.txt"] if name.startswith("shared") \
                    else [name.replace(".json", ".txt")]
                for t in targets:
                    with open(os.path.join(out, t), "w", encoding="utf-8") as f:
                        f.write("".join(tok + "\n" for tok in tokens))


def source_pieces(add_eos):
    import sentencepiece as spm
    with open(os.path.join(OPUS, "golden.json"), encoding="utf-8") as f:
        texts = json.load(f)["sources_text"]
    sp = spm.SentencePieceProcessor(model_file=os.path.join(OPUS, "model", "source.spm"))
    return [sp.encode(t, out_type=str) + (["</s>"] if add_eos else []) for t in texts]


def ct2_translate(driver, model, pieces, beam, compute_type="float32"):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join(" ".join(p) + "\n" for p in pieces))
    try:
        with open(f.name, encoding="utf-8") as inp:
            out = subprocess.run([driver, model, compute_type, "1", str(beam), str(MAX_DECODING), "1", "0", "batch"],
                                 stdin=inp, capture_output=True, text=True, check=True).stdout
    finally:
        os.remove(f.name)
    return [line.split(" ") if line else [] for line in out.split("\n")[:-1]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--ct2", default="/opt/ct2", help="CTranslate2 prefix: lib/, include/, python/")
    ap.add_argument("--driver", help="a compiled tools/ct2_driver.cc (default: compiled into OUT_DIR's parent)")
    a = ap.parse_args()
    specs = ct2_convert.import_ct2_specs(a.ct2)
    meta, w, pieces = opus_weights()
    made = {}
    for name, build, quantization, txt in (("marian", marian_spec, "float32", False),
                                           ("marian-int8", marian_spec, "int8", False),
                                           ("prenorm", prenorm_spec, "float16", True),
                                           ("prenorm-int8", prenorm_spec, "int8", False)):
        spec, _ = build(specs, meta, w, pieces)
        save(spec, os.path.join(a.out_dir, name), quantization, txt)
        made[name] = name.startswith("prenorm")
    driver = a.driver
    if not driver:
        driver = os.path.join(tempfile.mkdtemp(), "ct2_driver")
        subprocess.run(["g++", "-O2", "-std=c++17", os.path.join(ROOT, "tools", "ct2_driver.cc"), "-o", driver,
                        f"-I{a.ct2}/include", f"-L{a.ct2}/lib", "-lctranslate2", f"-Wl,-rpath,{a.ct2}/lib"],
                       check=True)
    golden = {"max_decoding_length": MAX_DECODING, "models": {}}
    for name, prenorm in made.items():
        # The Marian models' sources carry the </s> the caller appends; the others' config adds it.
        src = source_pieces(add_eos=not prenorm)
        golden["models"][name] = {
            "sources": src,
            "greedy": ct2_translate(driver, os.path.join(a.out_dir, name), src, 1),
            "beam4": ct2_translate(driver, os.path.join(a.out_dir, name), src, 4),
        }
    with open(os.path.join(a.out_dir, "golden.json"), "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
