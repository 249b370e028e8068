#!/usr/bin/python3
"""Make the tiny golden test fixtures: random models + the PyTorch reference's outputs.

  /usr/bin/python3 tools/make_fixtures.py --out tests/fixtures

Deterministic (fixed seeds, one thread). Writes:
  spm/{en,de,joint}.model          tiny SentencePiece models trained on tools/fixture_text.py's sentences
  opus/model, opus/hf, opus/marian OPUS-MT-style model in our format, Hugging Face layout, native Marian .npz
  paper/model, gelu-table/model    the other architectures
  <name>/golden.json, opus/marian/golden.json
See tests/fixtures/README.md (written by this script) for the contents.
"""
import argparse
import json
import os
import shutil
import sys
import time
from collections import OrderedDict

import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import write_checkpoint  # noqa: E402
# Re-exported (noqa: F401) for tools/test_reference.py, which builds models the way the fixtures are built.
from fixture_golden import golden, run_search, tune_eos, with_beam, write_json  # noqa: E402,F401
from fixture_layouts import hf_tensors, write_hf, write_marian  # noqa: E402,F401
from fixture_text import (NORM_RULES, NORMALIZATION_SENTENCE, SENTENCES, corpus, marian_vocab,  # noqa: E402,F401
                          train_spm)
from fixture_weights import add_clock, apply_eos_knob, random_tensors, rounded, torch_model  # noqa: E402,F401
import reference as ref  # noqa: E402


# ----------------------------------------------------------------------------------------------
# Fixture specifications

FIXTURES = {
    "opus": dict(
        seed=101, dtype="f32", spm=("en", "de"), vocab=True, sentences=SENTENCES, languages=("en", "de"),
        config=dict(d_model=32, n_heads=4, encoder_layers=2, decoder_layers=2, ffn_dim=64, activation="swish",
                    norm="post", final_norm=False, layer_norm_eps=1e-5, positions="sinusoidal-concat",
                    max_positions=512, scale_embedding=True, shared_embeddings=True, tied_output=True,
                    output_bias=True),
        decoding=dict(beam_size=4, length_penalty=1.0, max_length_a=1.0, max_length_b=5, max_length=512,
                      ban_unk=False, renormalize=False),
        embed_std=1.0, gains={"fc2": 4.0, "cross_attn": 0.5}, bias_std=0.05),
    "paper": dict(
        seed=202, dtype="f16", spm=("en", "de"), vocab=False, sentences=SENTENCES,
        config=dict(d_model=32, n_heads=2, encoder_layers=2, decoder_layers=1, ffn_dim=64, activation="relu",
                    norm="pre", final_norm=True, layer_norm_eps=1e-5, positions="sinusoidal-interleaved",
                    max_positions=256, scale_embedding=True, shared_embeddings=False, tied_output=False,
                    output_bias=False),
        decoding=dict(beam_size=5, length_penalty=0.8, max_length_a=2.0, max_length_b=3, max_length=16,
                      ban_unk=True, renormalize=True),
        embed_std=1.0),
    "gelu-table": dict(
        seed=303, dtype="f32", spm=("joint", "joint"), vocab=False, sentences=SENTENCES + [NORMALIZATION_SENTENCE],
        config=dict(d_model=32, n_heads=4, encoder_layers=1, decoder_layers=2, ffn_dim=48, activation="gelu",
                    norm="post", final_norm=False, layer_norm_eps=1e-6, positions="table",
                    max_positions=48, scale_embedding=False, shared_embeddings=True, tied_output=False,
                    output_bias=True),
        decoding=dict(beam_size=3, length_penalty=1.2, max_length_a=1.5, max_length_b=4, max_length=200,
                      ban_unk=False, renormalize=True),
        embed_std=1.0),
}


# ----------------------------------------------------------------------------------------------
# Putting a fixture together

SPM_SIZES = {"en": 180, "de": 220, "joint": 280}


def marian_variant(config, tokens, decoding, sources, max_lens):
    """Native Marian semantics for the same weights: its sinusoids, LN eps 1e-6, <unk> banned after the
    softmax (not renormalized), pad absent from its vocabulary (no probability mass), normalize 1.0,
    marian-decoder's beam search."""
    overrides = {"positions": "sinusoidal-marian", "layer_norm_eps": 1e-6}
    opts = ref.SearchOptions(beam_size=1, n_best=1, length_penalty=1.0, renormalize=False,
                             eos_id=tokens["eos"], start_id=tokens["decoder_start"],
                             banned=sorted({tokens["pad"], tokens["decoder_start"], tokens["unk"]}),
                             softmax_excluded=[tokens["pad"]], beam_rules="marian")
    return overrides, opts, sources, max_lens


# Files in a fixture's folder that other programs recorded (marian-decoder's lists cannot be remade
# without Marian), kept across a rebuild. attention.json is remade by `make fixtures`.
RECORDED = {"opus": ["marian/marian-decoder-beam4.nbest"]}


def read_recorded(fdir, name):
    """{relative path: bytes} of the fixture's recorded files that exist."""
    kept = {}
    for rel in RECORDED.get(name, []):
        path = os.path.join(fdir, rel)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                kept[rel] = f.read()
    return kept


def build_fixture(name, spec, out, spm_paths, log):
    fdir = os.path.join(out, name)
    model_dir = os.path.join(fdir, "model")
    recorded = read_recorded(fdir, name)
    if os.path.isdir(fdir):
        shutil.rmtree(fdir)
    os.makedirs(model_dir)
    src_spm, tgt_spm = spm_paths[spec["spm"][0]], spm_paths[spec["spm"][1]]
    vocab = None
    if spec["vocab"]:
        vocab, omitted = marian_vocab(src_spm, tgt_spm, spec["sentences"])
        v = len(vocab)
        tokens = {"pad": v - 1, "unk": 1, "eos": 0, "decoder_start": v - 1}
        sizes = (v, v)
        tokenizer = {"source_spm": "source.spm", "target_spm": "target.spm", "source_vocab": "vocab.json",
                     "target_vocab": "vocab.json", "add_eos": True}
        with open(os.path.join(model_dir, "vocab.json"), "w", encoding="utf-8") as f:
            json.dump(vocab, f, ensure_ascii=False, indent=2)
        log(f"{name}: vocab.json {v} entries, source pieces left out (-> <unk>): {omitted}")
    else:
        tokens = {"pad": 0, "unk": 1, "eos": 3, "decoder_start": 2}
        sizes = tuple(spm.SentencePieceProcessor(model_file=p).get_piece_size() for p in (src_spm, tgt_spm))
        same = src_spm == tgt_spm
        tokenizer = {"source_spm": "spm.model" if same else "source.spm",
                     "target_spm": "spm.model" if same else "target.spm",
                     "source_vocab": None, "target_vocab": None, "add_eos": True}
    shutil.copyfile(src_spm, os.path.join(model_dir, tokenizer["source_spm"]))
    shutil.copyfile(tgt_spm, os.path.join(model_dir, tokenizer["target_spm"]))

    config = OrderedDict((k, spec["config"][k]) for k in spec["config"])
    config["src_vocab_size"], config["tgt_vocab_size"] = sizes
    decoding = spec["decoding"]
    meta = {"tokenizer": tokenizer, "tokens": tokens, "decoding": decoding}
    tok = ref.Tokenizer(model_dir, meta)
    texts = spec["sentences"]
    sources = [tok.encode(s) for s in texts]
    max_lens = [ref.max_generated(len(s), decoding, config["max_positions"]) for s in sources]
    opts = ref.search_options(meta, beam_size=1)     # greedy, the model's length penalty

    tensors = random_tensors(config, spec["seed"], spec["embed_std"], zero_row=tokens["pad"] if vocab else None,
                             gains=spec.get("gains"), bias_std=spec.get("bias_std", 0.5))
    tensors = add_clock(tensors, config)
    if vocab:
        tensors["output.bias"][tokens["pad"]] = 0.0     # the .npz has no pad entry: Marian appends 0
    variants = [({}, opts, sources, max_lens)]
    if vocab:
        variants.append(marian_variant(config, tokens, decoding, sources, max_lens))
    knob = tune_eos(variants, tensors, config, tokens, spec["dtype"])
    tensors = apply_eos_knob(tensors, config, tokens, knob)
    source_lang, target_lang = spec.get("languages", (None, None))
    write_checkpoint(model_dir, config, tokens, decoding, tokenizer, tensors, dtype=spec["dtype"],
                     source_lang=source_lang, target_lang=target_lang)

    model, meta = ref.Model.load(model_dir)
    g = golden(model, tok, texts, sources, max_lens, ref.search_options(meta, beam_size=1))
    write_json(os.path.join(fdir, "golden.json"), g)
    log(f"{name}: EOS knob {knob}; {describe(g)}")

    if vocab:
        t = rounded(tensors, spec["dtype"])
        write_hf(os.path.join(fdir, "hf"), t, config, tokens, decoding, vocab, src_spm, tgt_spm)
        write_marian(os.path.join(fdir, "marian"), t, config, decoding, vocab, src_spm, tgt_spm)
        overrides, mopts, _, _ = marian_variant(config, tokens, decoding, sources, max_lens)
        mmodel = torch_model(config, tokens, t, overrides)
        note = ("native Marian: positions sinusoidal-marian, layer_norm_eps 1e-6; log_softmax over the "
                "Marian vocabulary (pad excluded), then <unk> (and pad/start) -> -inf, no renormalization; "
                "normalize 1.0; marian-decoder's beam search")
        mg = golden(mmodel, tok, texts, sources, max_lens, mopts, note)
        write_json(os.path.join(fdir, "marian", "golden.json"), mg)
        log(f"{name}/marian: {describe(mg)}")
    for rel, data in recorded.items():
        with open(os.path.join(fdir, rel), "wb") as f:
            f.write(data)
        log(f"{name}: kept {rel} (recorded by another program)")


def describe(g):
    """One line: how greedy / beam outputs end (EOS naturally vs max length)."""
    def ends(results):
        nat = sum(1 for h, m in zip(results, g["max_lengths"]) if len(h["ids"]) + 1 < m)
        return f"{nat} EOS/{len(results) - nat} max"
    parts = [f"greedy lengths {[len(h['ids']) for h in g['greedy']]} of max {g['max_lengths']} "
             f"({ends(g['greedy'])})"]
    for b in g["beam"]:
        parts.append(f"beam{b['beam_size']} best {ends([r[0] for r in b['results']])}")
    return ", ".join(parts)


def dir_size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


README = """# Test fixtures

Generated by `tools/make_fixtures.py` (fixed seeds, one thread); do not edit by hand. Regenerate with

    make fixtures        # = /usr/bin/python3 tools/make_fixtures.py --out tests/fixtures

(Debian's python3 with torch, numpy, sentencepiece). Tiny random Transformers (d_model 32), so outputs are
gibberish, but every number in `golden.json` comes from the PyTorch reference `tools/reference.py`, which
implements docs/checkpoint.md exactly. The EOS logit of each model was tuned so that some sentences end with
a natural EOS and others hit their max length, and every golden result was checked to stay the same when
uniform noise of +-1e-4 is added to the logits (no near-ties).

## Files

| path | what |
|---|---|
| `spm/en.model`, `spm/de.model` | unigram SentencePiece, identity normalization, ids pad 0 unk 1 bos 2 eos 3 |
| `spm/joint.model` | same, joint en+de, with a small user-defined normalization charsmap (full-width ASCII -> ASCII, U+FB01 -> "fi", U+2026 -> "...", U+00A0 -> space) |
| `<name>/model/` | checkpoint format v1 (`model.json`, `weights.bin`, tokenizer files) |
| `<name>/golden.json` | reference outputs for that model |
| `opus/hf/` | the opus model in Hugging Face MarianMT layout: `config.json`, `generation_config.json`, `tokenizer_config.json`, `model.safetensors` (F32; `model.shared.weight`, `final_logits_bias` [1,V], `model.{{encoder,decoder}}.layers.N...`; no position table, no lm_head), `vocab.json`, `source.spm`, `target.spm`. Same weights and semantics as `opus/model`: `opus/golden.json` applies. |
| `opus/marian/` | the opus model as native Marian: `model.npz` (`Wemb` [V-1,d] without the pad row, [in,out] weights, [1,n] vectors, 1-based layers, `decoder_ff_logit_out_b` [1,V-1], `special:model.yml` int8 NUL-terminated), `decoder.yml`, `vocab.yml` (`piece: id`, no `<pad>`), `source.spm`, `target.spm` |
| `opus/marian/golden.json` | reference outputs with native Marian semantics (see its `search.note`): positions sinusoidal-marian, LayerNorm eps 1e-6, log_softmax over the V-1 Marian entries (pad takes no probability mass), `<unk>` banned after the softmax without renormalization, length penalty 1.0 (`normalize: 1.0`); decoder start = an all-zero embedding (the appended pad row); marian-decoder's beam search (docs/search.md) |
| `opus/marian/marian-decoder-beam4.nbest` | marian-decoder's own 4-best lists (`-b 4 --n-best --normalize 1`, one sentence per batch, browsermt/marian-dev v1.9.56 on a CPU) for the golden sentences, read as the pieces of their golden ids: tests/marian_nbest_check.py |
| `ct2/` | CTranslate2 model directories from the opus model, written by `tests/tools/make_ct2_fixtures.py` through CTranslate2's own TransformerSpec (not by make_fixtures.py): `marian/` (as ct2-transformers-converter writes a MarianMT model: pad row dropped, start_from_zero_embedding, Hugging Face's sinusoid stored, float32), `marian-int8/`, `prenorm/` (pre-norm + final norms, gelu, separate embeddings, untied projection without bias, CTranslate2's own sinusoid, float16, .txt vocabularies), `prenorm-int8/`; each with source.spm/target.spm copied in. `ct2/golden.json`: CTranslate2 4.8.1's output pieces (compute_type float32, greedy and beam 4, max_decoding_length 12) for the opus sentences |

## Models

{table}

## golden.json

```
{{"sources_text": [...],          // input lines
 "sources": [[ids incl. EOS]],    // tokenizer output (vocab JSON mapping when the model names one)
 "max_lengths": [...],            // generated tokens allowed incl. EOS:
                                  //   max(1, min(max_length, floor(max_length_a * len(source) + max_length_b), max_positions))
 "search": {{"length_penalty", "renormalize", "eos", "decoder_start", "banned", "softmax_excluded"[, "note"]}},
                                  // the options of the greedy run (model defaults); beam runs differ only as listed in "beam"
 "encoder_output": {{"sentence": 0, "shape": [L, d], "data": [...]}},   // sentence 0 encoded alone, row-major
 "decoder_logits": {{"sentence": 0, "tokens": [start, g1, g2, g3], "shape": [4, V], "data": [...]}},
                                  // raw logits (before log_softmax / bans), teacher-forced on sentence 0's greedy output
 "greedy": [{{"ids": [...], "score": s}}],      // ids exclude EOS; score = sum logprobs / (len(ids)+1)^length_penalty
 "beam": [{{"beam_size": 4, "length_penalty": 1.0, "n_best": 4, "results": [[{{"ids", "score"}}, ...best first], ...]}},
          {{"beam_size": 3, "length_penalty": 0.6, "n_best": 2, "results": [...]}}],
 "greedy_text": [...]}}           // detokenized greedy output
```

Every sentence is decoded alone (batch of 1). Floats are Python `repr` (shortest round-trip doubles; tensor
data are exact float32 values). Search semantics: docs/checkpoint.md and `tools/reference.py` (`beam_search`):
Hugging Face beam search started from one beam per sentence; candidates ranked by value, lower flat index
(beam-major) first on ties.
"""


def model_table():
    rows = ["| name | what it covers |", "|---|---|"]
    for name, s in FIXTURES.items():
        c, d = s["config"], s["decoding"]
        what = (f"{c['norm']}-norm{' + final_norm' if c['final_norm'] else ''}, {c['activation']}, "
                f"{c['positions']} (max_positions {c['max_positions']}), "
                f"scale_embedding {str(c['scale_embedding']).lower()}, "
                f"{'shared' if c['shared_embeddings'] else 'separate'} embeddings, "
                f"{'tied' if c['tied_output'] else 'untied'} output{', output bias' if c['output_bias'] else ''}, "
                f"eps {c['layer_norm_eps']}, {c['encoder_layers']} enc + {c['decoder_layers']} dec layers, "
                f"{c['n_heads']} heads, ffn {c['ffn_dim']}, {s['dtype']} weights; "
                f"decoding beam {d['beam_size']}, lp {d['length_penalty']}, a {d['max_length_a']}, "
                f"b {d['max_length_b']}, max_length {d['max_length']}, ban_unk {str(d['ban_unk']).lower()}, "
                f"renormalize {str(d['renormalize']).lower()}")
        if s["vocab"]:
            what += ("; OPUS-MT ids (eos 0, unk 1, pad = decoder_start = V-1, zero pad embedding), "
                     "vocab.json piece->id (ids differ from the spm's; two source pieces missing -> unk), "
                     "source.spm en / target.spm de")
        elif s["spm"][0] != s["spm"][1]:
            what += "; ids pad 0 unk 1 start 2 eos 3, source en.model / target de.model (different sizes)"
        else:
            what += "; ids pad 0 unk 1 start 2 eos 3, joint spm with normalization rules"
        if "languages" in s:
            what += "; languages %s -> %s" % s["languages"]
        rows.append(f"| `{name}` | {what} |")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/fixtures")
    ap.add_argument("--only", nargs="*", help="build only these fixtures")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    start = time.time()

    def log(msg):
        print(f"[{time.time() - start:6.1f}s] {msg}", flush=True)

    spm_dir = os.path.join(args.out, "spm")
    os.makedirs(spm_dir, exist_ok=True)
    en, de = corpus()
    spm_paths = {k: os.path.join(spm_dir, f"{k}.model") for k in SPM_SIZES}
    train_spm(en, spm_paths["en"], SPM_SIZES["en"])
    train_spm(de, spm_paths["de"], SPM_SIZES["de"])
    train_spm(en + de, spm_paths["joint"], SPM_SIZES["joint"], rules=NORM_RULES)
    log(f"tokenizers: {', '.join(f'{k} {os.path.getsize(p)} bytes' for k, p in spm_paths.items())}")

    for name, spec in FIXTURES.items():
        if not args.only or name in args.only:
            build_fixture(name, spec, args.out, spm_paths, log)
            log(f"{name}: {dir_size(os.path.join(args.out, name)) // 1024} KiB")
    with open(os.path.join(args.out, "README.md"), "w", encoding="utf-8") as f:
        f.write(README.format(table=model_table()))
    log("done")


if __name__ == "__main__":
    main()
