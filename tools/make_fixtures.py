#!/usr/bin/python3
"""Make the tiny golden test fixtures: random models + the PyTorch reference's outputs.

  /usr/bin/python3 tools/make_fixtures.py --out tests/fixtures

Deterministic (fixed seeds, one thread). Writes:
  spm/{en,de,joint}.model          tiny SentencePiece models trained on the built-in sentences below
  opus/model, opus/hf, opus/marian OPUS-MT-style model in our format, Hugging Face layout, native Marian .npz
  paper/model, gelu-table/model    the other architectures
  <name>/golden.json, opus/marian/golden.json
See tests/fixtures/README.md (written by this script) for the contents.
"""
import argparse
import copy
import json
import math
import os
import random
import re
import shutil
import struct
import sys
import tempfile
import time
from collections import OrderedDict

import numpy as np
import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import expected_tensors, write_checkpoint  # noqa: E402
import reference as ref  # noqa: E402

# ----------------------------------------------------------------------------------------------
# Built-in training text for the tokenizers (not the corpus files)

EN_SUBJECTS = [("a man", "is"), ("a woman", "is"), ("the boy", "is"), ("the girl", "is"), ("two dogs", "are"),
               ("three children", "are"), ("an old man", "is"), ("a young woman", "is"), ("the people", "are"),
               ("a group of friends", "is"), ("my brother", "is"), ("the teacher", "is"), ("a small cat", "is"),
               ("the musicians", "are"), ("a worker", "is"), ("several tourists", "are"), ("her mother", "is")]
EN_ACTIONS = ["riding a bicycle", "playing football", "reading a book", "walking along the beach",
              "eating an apple", "climbing a rock", "waiting for the bus", "singing a song", "painting a wall",
              "swimming in the lake", "cooking dinner", "looking at the camera", "sitting on a bench",
              "running through the park", "holding a red umbrella", "talking on the phone",
              "selling fruit at the market", "jumping into the water", "carrying a heavy box",
              "wearing a green jacket", "drinking coffee", "writing a letter", "dancing with a friend",
              "watching the birds", "building a snowman", "fixing a car", "taking a picture"]
EN_PLACES = ["in the city", "near the river", "at night", "in the morning", "under a tree", "on the street",
             "in front of the house", "during the summer", "next to the window", "outside the station",
             "in the snow", "at the wooden table", "in the rain", "on a sunny day", "behind the school"]
EN_EXTRA = ["Hi!", "Hello, how are you?", "It is raining.", "The sun is shining.", "Where is the station?",
            "Thank you very much.", "I do not know.", "What time is it?", "Yes.", "No, thanks.",
            "We are going home now.", "This is a very good idea.", "They have two cats and a dog."]

DE_SUBJECTS = [("ein Mann", 0), ("eine Frau", 0), ("der Junge", 0), ("das Mädchen", 0), ("zwei Hunde", 1),
               ("drei Kinder", 1), ("ein alter Mann", 0), ("eine junge Frau", 0), ("die Leute", 1),
               ("eine Gruppe von Freunden", 0), ("mein Bruder", 0), ("der Lehrer", 0), ("eine kleine Katze", 0),
               ("die Musiker", 1), ("ein Arbeiter", 0), ("mehrere Touristen", 1), ("ihre Mutter", 0)]
DE_ACTIONS = [("fährt Fahrrad", "fahren Fahrrad"), ("spielt Fußball", "spielen Fußball"),
              ("liest ein Buch", "lesen ein Buch"), ("geht am Strand entlang", "gehen am Strand entlang"),
              ("isst einen Apfel", "essen einen Apfel"), ("klettert auf einen Felsen", "klettern auf einen Felsen"),
              ("wartet auf den Bus", "warten auf den Bus"), ("singt ein Lied", "singen ein Lied"),
              ("streicht eine Wand", "streichen eine Wand"), ("schwimmt im See", "schwimmen im See"),
              ("kocht das Abendessen", "kochen das Abendessen"), ("schaut in die Kamera", "schauen in die Kamera"),
              ("sitzt auf einer Bank", "sitzen auf einer Bank"), ("läuft durch den Park", "laufen durch den Park"),
              ("hält einen roten Schirm", "halten einen roten Schirm"), ("telefoniert", "telefonieren"),
              ("verkauft Obst auf dem Markt", "verkaufen Obst auf dem Markt"),
              ("springt ins Wasser", "springen ins Wasser"), ("trägt eine schwere Kiste", "tragen eine schwere Kiste"),
              ("trinkt Kaffee", "trinken Kaffee"), ("schreibt einen Brief", "schreiben einen Brief"),
              ("tanzt mit einem Freund", "tanzen mit einem Freund"), ("beobachtet die Vögel", "beobachten die Vögel"),
              ("baut einen Schneemann", "bauen einen Schneemann"), ("repariert ein Auto", "reparieren ein Auto")]
DE_PLACES = ["in der Stadt", "am Fluss", "in der Nacht", "am Morgen", "unter einem Baum", "auf der Straße",
             "vor dem Haus", "im Sommer", "neben dem Fenster", "vor dem Bahnhof", "im Schnee",
             "am Holztisch", "im Regen", "an einem sonnigen Tag", "hinter der Schule"]
DE_EXTRA = ["Hallo!", "Wie geht es dir?", "Es regnet.", "Die Sonne scheint.", "Wo ist der Bahnhof?",
            "Vielen Dank.", "Ich weiß es nicht.", "Wie spät ist es?", "Ja.", "Nein, danke.",
            "Wir gehen jetzt nach Hause.", "Das ist eine sehr gute Idee.", "Sie haben zwei Katzen und einen Hund."]

# Normalization rules for the joint tokenizer (a small precompiled charsmap, like nmt_nfkc's but tiny):
# full-width ASCII -> ASCII, the fi ligature, the ellipsis, no-break space.
NORM_RULES = ([(0xFF01 + i, [0x21 + i]) for i in range(94)] +
              [(0xFB01, [0x66, 0x69]), (0x2026, [0x2E, 0x2E, 0x2E]), (0x00A0, [0x20])])


def corpus():
    """A few hundred deterministic English and German-ish lines."""
    rng = random.Random(7)
    en, de = list(EN_EXTRA), list(DE_EXTRA)
    for _ in range(320):
        subj, verb = rng.choice(EN_SUBJECTS)
        line = f"{subj} {verb} {rng.choice(EN_ACTIONS)}"
        if rng.random() < 0.7:
            line += " " + rng.choice(EN_PLACES)
        en.append(line[0].upper() + line[1:] + rng.choice([".", ".", ".", "!", "?"]))
        subj, plural = rng.choice(DE_SUBJECTS)
        line = f"{subj} {rng.choice(DE_ACTIONS)[plural]}"
        if rng.random() < 0.7:
            line += " " + rng.choice(DE_PLACES)
        de.append(line[0].upper() + line[1:] + rng.choice([".", ".", ".", "!", "?"]))
    return en, de


def train_spm(lines, model_path, vocab_size, rules=None):
    """Unigram SentencePiece, ids pad 0, unk 1, bos 2, eos 3; identity normalization unless `rules`.
    Trained in a temporary dir with relative file names: the model records them, and must not vary."""
    model_path = os.path.abspath(model_path)
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            with open("text.txt", "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            kwargs = dict(input="text.txt", model_prefix="m", vocab_size=vocab_size, model_type="unigram",
                          character_coverage=1.0, pad_id=0, unk_id=1, bos_id=2, eos_id=3, num_threads=1,
                          shuffle_input_sentence=False, minloglevel=2)
            if rules:
                with open("rules.tsv", "w") as f:
                    for src, dst in rules:
                        f.write("%04X\t%s\n" % (src, " ".join("%04X" % c for c in dst)))
                kwargs["normalization_rule_tsv"] = "rules.tsv"
            else:
                kwargs["normalization_rule_name"] = "identity"
            spm.SentencePieceTrainer.train(**kwargs)
            shutil.copyfile("m.model", model_path)
        finally:
            os.chdir(cwd)


def spm_pieces(path):
    sp = spm.SentencePieceProcessor(model_file=path)
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())
            if not (sp.is_control(i) or sp.is_unknown(i))]


def marian_vocab(en_model, de_model, sentences):
    """Joint Marian-style vocab: </s> 0, <unk> 1, pieces (sorted, so ids differ from the spm's), <pad> last.
    Two source pieces used by the test sentences are left out on purpose (they must map to <unk>)."""
    sp = spm.SentencePieceProcessor(model_file=en_model)
    used = []
    for s in sentences:
        used += [p for p in sp.encode(s, out_type=str) if p != "\u2581" and len(p) > 2 and p not in used]
    omit = set(used[1:3])        # never the first sentence's first piece
    pieces = sorted(set(spm_pieces(en_model)) | set(spm_pieces(de_model)))
    vocab = OrderedDict([("</s>", 0), ("<unk>", 1)])
    for p in pieces:
        if p not in omit:
            vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    return vocab, sorted(omit)


# ----------------------------------------------------------------------------------------------
# Test sentences (sentence 0 must produce a greedy output of >= 3 tokens)

SENTENCES = [
    "A man in a blue shirt is riding a bicycle down the street.",
    "Hi",
    "Two dogs are playing in the snow.",
    "Several young children are sitting at a wooden table in the park while their mother is reading a book.",
    "The café in Zürich costs 5€ – really?",
    "  A   woman   sings  in the   rain . ",
    "Die Kinder spielen im Wasser.",
]
NORMALIZATION_SENTENCE = "Ａ ﬁne dog…\u00a0runs"   # exercises the joint model's normalization rules

BEAMS = [{"beam_size": 4, "length_penalty": 1.0, "n_best": 4},
         {"beam_size": 3, "length_penalty": 0.6, "n_best": 2}]
DECODER_LOGIT_STEPS = 4

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


# ----------------------------------------------------------------------------------------------
# Running the reference

class NoisyDecoder:
    """Adds uniform noise to logits: a golden result that changes under it sits on a near-tie."""

    def __init__(self, inner, seed, eps):
        self.inner, self.gen, self.eps = inner, torch.Generator().manual_seed(seed), eps

    def start(self, n):
        self.inner.start(n)

    def select_rows(self, rows):
        self.inner.select_rows(rows)

    def step(self, tokens, sents, position):
        logits = self.inner.step(tokens, sents, position)
        return logits + (torch.rand(logits.shape, generator=self.gen) * 2 - 1) * self.eps


def run_search(model, src_ids, max_len, opts, noise_seed=None):
    """One sentence alone (batch of 1) -> list of Hypothesis."""
    with torch.inference_mode():
        enc, mask = ref.encode_batch(model, [src_ids])
        dec = ref.CachedDecoder(model, enc, mask)
        if noise_seed is not None:
            dec = NoisyDecoder(dec, noise_seed, 1e-4)
        return ref.search(dec, [max_len], opts)[0]


def with_beam(opts, beam):
    o = copy.deepcopy(opts)
    o.beam_size, o.length_penalty, o.n_best = beam["beam_size"], beam["length_penalty"], beam["n_best"]
    return o


class LogitRecorder:
    """Wraps a decoder; keeps every step's logits per sentence."""

    def __init__(self, inner, n):
        self.inner, self.steps = inner, [[] for _ in range(n)]

    def start(self, n):
        self.inner.start(n)

    def select_rows(self, rows):
        self.inner.select_rows(rows)

    def step(self, tokens, sents, position):
        logits = self.inner.step(tokens, sents, position)
        for r, s in enumerate(sents):
            self.steps[s].append(logits[r].clone())
        return logits


def eos_gaps(model, sources, max_lens, opts):
    """Greedy with EOS banned (until the forced last step): per sentence, per step before the last,
    gap = best allowed non-EOS logit - EOS logit. With the EOS logit raised by beta, greedy stops at
    the first step whose gap < beta; the steps before do not depend on beta."""
    o = copy.deepcopy(opts)
    o.softmax_excluded = list(o.softmax_excluded) + [o.eos_id]
    never = set(o.banned) | set(o.softmax_excluded)
    allowed = torch.tensor([i for i in range(model.out_weight.shape[0]) if i not in never])
    gaps = []
    with torch.inference_mode():
        for s, m in zip(sources, max_lens):
            enc, mask = ref.encode_batch(model, [s])
            rec = LogitRecorder(ref.CachedDecoder(model, enc, mask), 1)
            ref.greedy_search(rec, [m], o)
            gaps.append([float(lg[allowed].max() - lg[opts.eos_id]) for lg in rec.steps[0][:-1]])
    return gaps


def lengths_for(gaps, max_lens, beta):
    """Greedy output length incl. EOS for each sentence, and the smallest |gap - beta| seen on the way."""
    lengths, margin = [], float("inf")
    for g, m in zip(gaps, max_lens):
        n = m
        for t, gap in enumerate(g):
            margin = min(margin, abs(gap - beta))
            if gap < beta:
                n = t + 1
                break
        lengths.append(n)
    return lengths, margin


def quality(lengths, max_lens):
    """min(#natural EOS with >= 2 tokens before it, #max length hit, #distinct natural lengths);
    -1 unless sentence 0 has >= 3 tokens (decoder_logits needs them)."""
    natural = [n for n, m in zip(lengths, max_lens) if 3 <= n < m]
    hit = sum(1 for n, m in zip(lengths, max_lens) if n >= m)
    if lengths[0] - 1 < 3:
        return -1
    return min(len(natural), hit, len(set(natural)))


def stable(model, sources, max_lens, opts):
    """Greedy and both beam settings give the same ids under small logit noise."""
    for o in [opts] + [with_beam(opts, b) for b in BEAMS]:
        for s, m in zip(sources, max_lens):
            clean = [h.tokens for h in run_search(model, s, m, o)]
            for seed in (1, 2, 3):
                if [h.tokens for h in run_search(model, s, m, o, seed)] != clean:
                    return False
    return True


def tune_eos(variants, tensors, config, tokens, dtype):
    """Pick (alpha, beta) giving a mix of natural EOS and max-length hits in every variant, far from
    decision boundaries, with results stable under noise. variants: (overrides, opts, sources, max_lens)."""
    candidates = []
    for alpha in (4.0, 8.0, 16.0, 32.0):
        t = rounded(apply_eos_knob(tensors, config, tokens, (alpha, 0.0)), dtype)
        all_gaps = [eos_gaps(torch_model(config, tokens, t, ov), s, m, o) for ov, o, s, m in variants]
        values = sorted({round(g, 3) for gaps in all_gaps for gs in gaps for g in gs})
        for lo, hi in zip(values, values[1:]):
            beta = round((lo + hi) / 2, 3)
            q, margin = None, float("inf")
            for gaps, (_, _, _, max_lens) in zip(all_gaps, variants):
                lengths, m = lengths_for(gaps, max_lens, beta)
                q = quality(lengths, max_lens) if q is None else min(q, quality(lengths, max_lens))
                margin = min(margin, m)
            if q >= 2:
                candidates.append((q, margin, alpha, beta))
    candidates.sort(key=lambda c: (-min(c[0], 3), -c[1]))
    for q, margin, alpha, beta in candidates[:10]:
        t = rounded(apply_eos_knob(tensors, config, tokens, (alpha, beta)), dtype)
        if all(stable(torch_model(config, tokens, t, ov), s, m, o) for ov, o, s, m in variants):
            return alpha, beta
    raise RuntimeError("no EOS setting gives varied, stable outputs; change the seed")


def golden(model, tokenizer, texts, sources, max_lens, opts, search_note=None):
    """The golden.json dict (see README). opts: the greedy options."""
    assert opts.beam_size == 1
    g = OrderedDict()
    g["sources_text"] = texts
    g["sources"] = sources
    g["max_lengths"] = max_lens
    g["search"] = OrderedDict([("length_penalty", opts.length_penalty), ("renormalize", opts.renormalize),
                               ("eos", opts.eos_id), ("decoder_start", opts.start_id),
                               ("banned", list(opts.banned)), ("softmax_excluded", list(opts.softmax_excluded))])
    if search_note:
        g["search"]["note"] = search_note
    greedy = [run_search(model, s, m, opts)[0] for s, m in zip(sources, max_lens)]
    with torch.inference_mode():
        enc, mask = ref.encode_batch(model, [sources[0]])
        g["encoder_output"] = OrderedDict([("sentence", 0), ("shape", list(enc.shape[1:])),
                                           ("data", enc[0].reshape(-1).tolist())])
        toks = ([opts.start_id] + greedy[0].tokens + [opts.eos_id])[:DECODER_LOGIT_STEPS]
        logits = model.decode_full(torch.tensor([toks]), enc, mask)[0]
        g["decoder_logits"] = OrderedDict([("sentence", 0), ("tokens", toks), ("shape", list(logits.shape)),
                                           ("data", logits.reshape(-1).tolist())])
    g["greedy"] = [{"ids": h.tokens, "score": h.score} for h in greedy]
    g["beam"] = []
    for b in BEAMS:
        o = with_beam(opts, b)
        res = [[{"ids": h.tokens, "score": h.score} for h in run_search(model, s, m, o)]
               for s, m in zip(sources, max_lens)]
        g["beam"].append(OrderedDict(list(b.items()) + [("results", res)]))
    g["greedy_text"] = [tokenizer.decode(h.tokens) for h in greedy]
    return g


def write_json(path, obj):
    """One top-level key per line; lists of objects one element per line."""
    lines = []
    for k, v in obj.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            inner = ",\n    ".join(json.dumps(x, ensure_ascii=False) for x in v)
            lines.append(f"  {json.dumps(k)}: [\n    {inner}\n  ]")
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


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


# ----------------------------------------------------------------------------------------------
# Putting a fixture together

SPM_SIZES = {"en": 180, "de": 220, "joint": 280}


def marian_variant(config, tokens, decoding, sources, max_lens):
    """Native Marian semantics for the same weights: its sinusoids, LN eps 1e-6, <unk> banned after the
    softmax (not renormalized), pad absent from its vocabulary (no probability mass), normalize 1.0."""
    overrides = {"positions": "sinusoidal-marian", "layer_norm_eps": 1e-6}
    opts = ref.SearchOptions(beam_size=1, n_best=1, length_penalty=1.0, renormalize=False,
                             eos_id=tokens["eos"], start_id=tokens["decoder_start"],
                             banned=sorted({tokens["pad"], tokens["decoder_start"], tokens["unk"]}),
                             softmax_excluded=[tokens["pad"]])
    return overrides, opts, sources, max_lens


def build_fixture(name, spec, out, spm_paths, log):
    fdir = os.path.join(out, name)
    model_dir = os.path.join(fdir, "model")
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
                "normalize 1.0")
        mg = golden(mmodel, tok, texts, sources, max_lens, mopts, note)
        write_json(os.path.join(fdir, "marian", "golden.json"), mg)
        log(f"{name}/marian: {describe(mg)}")


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
| `opus/marian/golden.json` | reference outputs with native Marian semantics (see its `search.note`): positions sinusoidal-marian, LayerNorm eps 1e-6, log_softmax over the V-1 Marian entries (pad takes no probability mass), `<unk>` banned after the softmax without renormalization, length penalty 1.0 (`normalize: 1.0`); decoder start = an all-zero embedding (the appended pad row) |

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
