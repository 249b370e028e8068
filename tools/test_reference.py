#!/usr/bin/python3
"""Self-checks of the PyTorch reference, the checkpoint writer/reader, the exporter and the fixtures.

  /usr/bin/python3 tools/test_reference.py [-v]
"""
import copy
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest
from collections import OrderedDict

import numpy as np
import torch

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
sys.path.insert(0, TOOLS)

import checkpoint  # noqa: E402
import export  # noqa: E402
import import_checkpoint  # noqa: E402
import make_fixtures as mf  # noqa: E402
import reference as ref  # noqa: E402
from train_model import TrainModel, sinusoids_interleaved  # noqa: E402

torch.set_num_threads(1)
FIXTURE_NAMES = list(mf.FIXTURES)


def score_tolerance(score, n_tokens):
    """How far a beam score recomputed in float32 may drift: each of its n_tokens log-probabilities comes
    out of float32 sums whose rounding depends on the CPU's kernels (summation order, FMA), about 16 ulp of
    the score's magnitude each; token ids do not drift, and the tests compare those exactly."""
    return 16 * float(np.finfo(np.float32).eps) * max(1.0, abs(score)) * max(1, n_tokens)


def have_fixtures():
    return all(os.path.exists(os.path.join(FIXTURES, n, "golden.json")) for n in FIXTURE_NAMES)


def random_model(seed=0, **overrides):
    """An in-memory random model; overrides change config entries."""
    config = OrderedDict(d_model=16, n_heads=2, encoder_layers=2, decoder_layers=2, ffn_dim=24, activation="gelu",
                         norm="pre", final_norm=True, layer_norm_eps=1e-5, positions="sinusoidal-concat",
                         max_positions=64, scale_embedding=True, shared_embeddings=False, tied_output=False,
                         output_bias=True, src_vocab_size=40, tgt_vocab_size=50)
    config.update(overrides)
    tokens = {"pad": 0, "unk": 1, "eos": 3, "decoder_start": 2}
    tensors = mf.random_tensors(config, seed, 1.0)
    return mf.torch_model(config, tokens, tensors), tokens


def random_sources(n, vocab, eos, seed):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, 12, (n,), generator=g).tolist()
    return [torch.randint(4, vocab, (k,), generator=g).tolist() + [eos] for k in lengths]


def run(model, sources, max_lens, opts, cached=True):
    with torch.inference_mode():
        enc, mask = ref.encode_batch(model, sources)
        dec = (ref.CachedDecoder if cached else ref.RecomputeDecoder)(model, enc, mask)
        return ref.search(dec, max_lens, opts)


MODEL_VARIANTS = [
    {},
    dict(norm="post", final_norm=False, activation="relu", positions="sinusoidal-interleaved",
         shared_embeddings=True, tied_output=True, output_bias=False, tgt_vocab_size=40),
    dict(norm="post", activation="swish", positions="table", scale_embedding=False, layer_norm_eps=1e-6),
    dict(positions="sinusoidal-marian", shared_embeddings=True, tied_output=False, tgt_vocab_size=40),
]


class TestPositions(unittest.TestCase):
    def test_hf_sinusoid_self_check(self):
        pe = ref.position_table("sinusoidal-concat", 2, 512).numpy()
        np.testing.assert_allclose(pe[1, 0:3], [0.84147096, 0.8218562, 0.8019618], atol=1e-7)
        np.testing.assert_allclose(pe[1, 256:259], [0.5403023, 0.569695, 0.59737533], atol=1e-7)
        np.testing.assert_array_equal(pe[0], np.concatenate([np.zeros(256), np.ones(256)]))

    def test_interleaved_matches_trainer(self):
        ours = ref.position_table("sinusoidal-interleaved", 100, 64)
        self.assertTrue(torch.equal(ours, sinusoids_interleaved(100, 64)))

    def test_marian_frequencies(self):
        d = 8
        pe = ref.position_table("sinusoidal-marian", 3, d).numpy()
        k = np.arange(d // 2)
        expected = np.sin(2 * np.exp(-k * np.log(10000.0) / (d / 2 - 1)))
        np.testing.assert_allclose(pe[2, : d // 2], expected, atol=1e-7)
        self.assertAlmostEqual(float(pe[2, d // 2 - 1]), float(np.sin(2 / 10000.0)), places=7)


class TestDecoding(unittest.TestCase):
    def test_cache_matches_full_recompute_logits(self):
        for i, variant in enumerate(MODEL_VARIANTS):
            model, tokens = random_model(i, **variant)
            sources = random_sources(3, model.config["src_vocab_size"], tokens["eos"], i)
            tgt = torch.randint(4, model.config["tgt_vocab_size"], (3, 7))
            tgt[:, 0] = tokens["decoder_start"]
            with torch.inference_mode():
                enc, mask = ref.encode_batch(model, sources)
                full = model.decode_full(tgt, enc, mask)
                dec = ref.CachedDecoder(model, enc, mask)
                dec.start(3)
                steps = torch.stack([dec.step(tgt[:, t].tolist(), [0, 1, 2], t) for t in range(7)], dim=1)
            self.assertLess(float((full - steps).abs().max()), 1e-4, f"variant {variant}")

    def test_cache_matches_recompute_search(self):
        for i, variant in enumerate(MODEL_VARIANTS):
            model, tokens = random_model(10 + i, **variant)
            sources = random_sources(5, model.config["src_vocab_size"], tokens["eos"], 10 + i)
            max_lens = [len(s) + 4 for s in sources]
            for beam in (1, 3):
                opts = ref.SearchOptions(beam_size=beam, n_best=beam, length_penalty=0.7, renormalize=bool(i % 2),
                                         eos_id=tokens["eos"], start_id=tokens["decoder_start"], banned=[0, 2])
                a = run(model, sources, max_lens, opts, cached=True)
                b = run(model, sources, max_lens, opts, cached=False)
                for ha, hb in zip(a, b):
                    self.assertEqual([h.tokens for h in ha], [h.tokens for h in hb])
                    for x, y in zip(ha, hb):
                        self.assertAlmostEqual(x.score, y.score, delta=1e-5)

    def test_hf_style_baseline_matches_search(self):
        """bench_reference.py's Hugging Face-style decoding (all batch x beam rows every step, finished
        sentences kept, input order) must find what the reference search finds."""
        import bench_reference
        for i, variant in enumerate(MODEL_VARIANTS):
            model, tokens = random_model(30 + i, **variant)
            sources = random_sources(7, model.config["src_vocab_size"], tokens["eos"], 30 + i)
            decoding = {"max_length_a": 0.0, "max_length_b": 9, "max_length": 64}
            for beam in (1, 3):
                opts = ref.SearchOptions(beam_size=beam, n_best=1, length_penalty=0.7, renormalize=bool(i % 2),
                                         eos_id=tokens["eos"], start_id=tokens["decoder_start"], banned=[0, 2])
                with torch.inference_mode():
                    want = ref.translate_ids(model, sources, opts, decoding, batch_size=3)
                    got = bench_reference.translate_hf_style(model, sources, opts, decoding, batch_size=3)
                for hw, hg in zip(want, got):
                    self.assertEqual(hw[0].tokens, hg[0].tokens, f"variant {i}, beam {beam}")
                    self.assertAlmostEqual(hw[0].score, hg[0].score, delta=1e-5)

    def test_beam1_equals_greedy(self):
        for i, variant in enumerate(MODEL_VARIANTS):
            model, tokens = random_model(20 + i, **variant)
            sources = random_sources(6, model.config["src_vocab_size"], tokens["eos"], 20 + i)
            max_lens = [len(s) + 6 for s in sources]
            for lp in (1.0, 0.6):
                opts = ref.SearchOptions(beam_size=1, length_penalty=lp, renormalize=True, eos_id=tokens["eos"],
                                         start_id=tokens["decoder_start"], banned=[0, 2])
                with torch.inference_mode():
                    enc, mask = ref.encode_batch(model, sources)
                    g = ref.greedy_search(ref.CachedDecoder(model, enc, mask), max_lens, opts)
                    b = ref.beam_search(ref.CachedDecoder(model, enc, mask), max_lens, opts)
                for hg, hb in zip(g, b):
                    self.assertEqual(hg[0].tokens, hb[0].tokens)
                    self.assertEqual(hg[0].score, hb[0].score)

    def test_forced_eos_and_max_length(self):
        model, tokens = random_model(3)
        sources = random_sources(4, 40, tokens["eos"], 3)
        opts = ref.SearchOptions(beam_size=1, eos_id=tokens["eos"], start_id=2, banned=[0, 2, tokens["eos"]])
        opts.softmax_excluded = [tokens["eos"]]          # EOS only when forced
        hyps = run(model, sources, [1, 2, 5, 9], opts)
        self.assertEqual([len(h[0].tokens) + 1 for h in hyps], [1, 2, 5, 9])
        self.assertEqual(ref.max_generated(10, {"max_length_a": 1.5, "max_length_b": 4, "max_length": 100}, 512), 19)
        self.assertEqual(ref.max_generated(10, {"max_length_a": 1.5, "max_length_b": 4, "max_length": 12}, 512), 12)
        self.assertEqual(ref.max_generated(10, {"max_length_a": 1.5, "max_length_b": 4, "max_length": 100}, 16), 16)
        self.assertEqual(ref.max_generated(1, {"max_length_a": 0.0, "max_length_b": 0, "max_length": 100}, 16), 1)

    def test_top_candidates_ties(self):
        flat = torch.tensor([1.0, 3.0, 3.0, float("-inf"), 2.0, 3.0, float("-inf")])
        self.assertEqual(ref.top_candidates(flat, 4)[0], [1, 2, 5, 4])
        self.assertEqual(ref.top_candidates(flat, 2)[0], [1, 2])
        self.assertEqual(ref.top_candidates(flat, 7)[0], [1, 2, 5, 4, 0, 3, 6])

    def test_finished_hypotheses_like_hf(self):
        f = ref.FinishedHypotheses(2, 1.0)
        f.add([1], -4.0, 2)      # -2
        f.add([2], -3.0, 3)      # -1
        f.add([3], -9.0, 3)      # -3: worse than both, dropped
        self.assertEqual([h.tokens for h in f.best(2)], [[2], [1]])
        self.assertEqual(f.worst, -2.0)
        self.assertTrue(f.is_done(-7.0, 3))      # best possible -7/3 cannot beat the worst finished (-2)
        self.assertFalse(f.is_done(-5.0, 3))     # -5/3 could
        f.add([4], -1.5, 3)      # -0.5: replaces the worst ([1])
        self.assertEqual(f.worst, -1.0)
        self.assertEqual([h.tokens for h in f.best(5)], [[4], [2]])


class TestCheckpoint(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.model, self.tokens = random_model(5)
        self.meta_parts = dict(
            config=dict(self.model.config), tokens=self.tokens,
            decoding={"beam_size": 3, "length_penalty": 1.0, "max_length_a": 1.5, "max_length_b": 4,
                      "max_length": 64, "ban_unk": False, "renormalize": True},
            tokenizer={"source_spm": "spm.model", "target_spm": "spm.model", "source_vocab": None,
                       "target_vocab": None, "add_eos": True})
        self.arrays = OrderedDict((k, v.numpy()) for k, v in self.model.w.items())

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, dtype="f32", **changes):
        parts = copy.deepcopy(self.meta_parts)
        parts.update(changes)
        d = os.path.join(self.tmp.name, dtype)
        checkpoint.write_checkpoint(d, parts["config"], parts["tokens"], parts["decoding"], parts["tokenizer"],
                                    self.arrays, dtype=dtype)
        return d

    def test_round_trip(self):
        for dtype in ("f32", "f16"):
            d = self.write(dtype)
            meta, tensors = checkpoint.read_checkpoint(d)
            self.assertEqual(list(tensors), list(self.arrays))
            for t in meta["tensors"]:
                self.assertEqual(t["offset"] % 64, 0)
            self.assertEqual(os.path.getsize(os.path.join(d, "weights.bin")), meta["weights"]["size"])
            self.assertRegex(meta["weights"]["crc32"], r"^[0-9a-f]{8}$")
            for k, v in self.arrays.items():
                expect = v.astype(np.float16).astype(np.float32) if dtype == "f16" else v
                np.testing.assert_array_equal(tensors[k], expect)

    def test_errors(self):
        d = self.write()
        with open(os.path.join(d, "weights.bin"), "r+b") as f:
            f.seek(100)
            b = f.read(1)
            f.seek(100)
            f.write(bytes([b[0] ^ 1]))
        with self.assertRaisesRegex(checkpoint.CheckpointError, "CRC-32"):
            checkpoint.read_checkpoint(d)
        bad = dict(self.meta_parts["config"], typo_key=1)
        with self.assertRaisesRegex(checkpoint.CheckpointError, "unknown field 'typo_key'"):
            self.write(config=bad)
        d = self.write()
        with open(os.path.join(d, "model.json")) as f:
            meta = json.load(f)
        for t in meta["tensors"]:
            if t["name"] == "decoder.layers.1.fc1.weight":
                t["shape"] = t["shape"][::-1]
        with open(os.path.join(d, "model.json"), "w") as f:
            json.dump(meta, f)
        with self.assertRaisesRegex(checkpoint.CheckpointError,
                                    r"tensor 'decoder.layers.1.fc1.weight': expected shape \[24,16\], got \[16,24\]"):
            checkpoint.read_checkpoint(d)


class TestExport(unittest.TestCase):
    def test_export_matches_train_model(self):
        torch.manual_seed(0)
        for act in ("relu", "gelu"):
            m = TrainModel(60, 16, 2, 2, 2, 32, 0.1, act)
            with torch.no_grad():
                for n, p in m.named_parameters():
                    if "norm" in n:
                        p.add_(torch.randn_like(p) * 0.1)
                    elif n.endswith("bias"):
                        p.normal_(0, 0.1)
            m.eval()
            with tempfile.TemporaryDirectory() as tmp:
                cfg = dict(vocab=60, d_model=16, heads=2, enc_layers=2, dec_layers=2, ffn=32, activation=act)
                torch.save({"config": cfg, "model": m.state_dict(), "epoch": 1}, os.path.join(tmp, "avg.pt"))
                mf.train_spm(mf.corpus()[0], os.path.join(tmp, "spm.model"), 60)
                src = torch.randint(4, 60, (3, 9))
                src[:, -1] = 3
                src[1, 5] = 3
                src[1, 6:] = 0
                tgt = torch.randint(4, 60, (3, 6))
                tgt[:, 0] = 2
                with torch.no_grad():
                    expected = m(src, tgt)
                for dtype, tol in (("f32", 1e-4), ("f16", 5e-2)):
                    out = os.path.join(tmp, dtype)
                    export.export(os.path.join(tmp, "avg.pt"), out, os.path.join(tmp, "spm.model"), dtype)
                    model, meta = ref.Model.load(out)
                    with torch.no_grad():
                        got = model.forward(src, [9, 6, 9], tgt)
                    err = float((got - expected)[torch.tensor([0, 2])].abs().max())
                    err1 = float((got[1] - expected[1]).abs().max())
                    self.assertLess(max(err, err1), tol, f"{act} {dtype}")
                    self.assertTrue(os.path.exists(os.path.join(out, "spm.model")))
                    tok = ref.Tokenizer(out, meta)
                    self.assertEqual(tok.encode("a man")[-1], 3)
                # The way back (a later training stage starting from a shipped model) is exact from f32.
                back = import_checkpoint.import_model(os.path.join(tmp, "f32"), os.path.join(tmp, "back", "m.pt"))
                self.assertEqual(back["config"], cfg)
                want = m.state_dict()
                self.assertEqual(sorted(back["model"]), sorted(want))
                for name, tensor in want.items():
                    self.assertTrue(torch.equal(back["model"][name], tensor), name)
                self.assertTrue(os.path.exists(os.path.join(tmp, "back", "spm.vocab")))


class TestFixtures(unittest.TestCase):
    def setUp(self):
        # The fixtures are checked in: a missing one is a failure, never a skip that reads as passed.
        self.assertTrue(have_fixtures(), f"a fixture under {FIXTURES} lacks golden.json: run make fixtures")

    def load(self, name):
        model_dir = os.path.join(FIXTURES, name, "model")
        model, meta = ref.Model.load(model_dir)
        with open(os.path.join(FIXTURES, name, "golden.json"), encoding="utf-8") as f:
            return model, meta, ref.Tokenizer(model_dir, meta), json.load(f)

    def test_goldens_reproduce(self):
        for name in FIXTURE_NAMES:
            model, meta, tok, g = self.load(name)
            self.assertEqual(g["sources"], [tok.encode(s) for s in g["sources_text"]])
            self.assertEqual(g["max_lengths"], [ref.max_generated(len(s), meta["decoding"],
                                                                  meta["config"]["max_positions"])
                                                for s in g["sources"]])
            opts = ref.search_options(meta, beam_size=1)
            greedy = [mf.run_search(model, s, m, opts)[0] for s, m in zip(g["sources"], g["max_lengths"])]
            self.assertEqual([h.tokens for h in greedy], [h["ids"] for h in g["greedy"]])
            for h, e in zip(greedy, g["greedy"]):
                self.assertAlmostEqual(h.score, e["score"], delta=score_tolerance(e["score"], len(e["ids"])))
            self.assertEqual([tok.decode(h.tokens) for h in greedy], g["greedy_text"])
            for b in g["beam"]:
                o = mf.with_beam(opts, b)
                for s, m, expected in zip(g["sources"], g["max_lengths"], b["results"]):
                    got = mf.run_search(model, s, m, o)
                    self.assertEqual([h.tokens for h in got], [e["ids"] for e in expected])

    def test_marian_golden_reproduces(self):
        """opus/marian/golden.json's beam lists are marian_beam_search's, and that search gives marian-decoder's
        own 4-best lists (opus/marian/marian-decoder-beam4.nbest, at its length limit of 3 x the source)."""
        _, meta, tok, _ = self.load("opus")
        _, tensors = checkpoint.read_checkpoint(os.path.join(FIXTURES, "opus", "model"))
        marian_dir = os.path.join(FIXTURES, "opus", "marian")
        with open(os.path.join(marian_dir, "golden.json"), encoding="utf-8") as f:
            g = json.load(f)
        overrides, opts, _, _ = mf.marian_variant(meta["config"], meta["tokens"], meta["decoding"], g["sources"],
                                                  g["max_lengths"])
        self.assertEqual(opts.beam_rules, "marian")
        model = mf.torch_model(meta["config"], meta["tokens"], tensors, overrides)
        for b in g["beam"]:
            o = mf.with_beam(opts, b)
            for s, m, expected in zip(g["sources"], g["max_lengths"], b["results"]):
                got = mf.run_search(model, s, m, o)
                self.assertEqual([h.tokens for h in got], [e["ids"] for e in expected])
        with open(os.path.join(marian_dir, "marian-decoder-beam4.nbest"), encoding="utf-8") as f:
            marian = [line.rstrip("\n").split(" ||| ") for line in f]
        o = mf.with_beam(opts, {"beam_size": 4, "length_penalty": 1.0, "n_best": 4})
        got = [(i, h) for i, s in enumerate(g["sources"]) for h in mf.run_search(model, s, 3 * len(s) + 1, o)]
        self.assertEqual(len(got), len(marian))
        for (i, h), (index, pieces, _, score) in zip(got, marian):
            self.assertEqual(i, int(index))
            self.assertEqual(tok.decode(h.tokens), "".join(pieces.split(" ")).replace("\u2581", " ").strip())
            self.assertAlmostEqual(h.score, float(score), delta=1e-4)

    def test_batching_does_not_change_results(self):
        for name in FIXTURE_NAMES:
            model, meta, tok, g = self.load(name)
            b = g["beam"][0]
            opts = mf.with_beam(ref.search_options(meta), b)
            hyps = ref.translate_ids(model, g["sources"], opts, meta["decoding"], batch_size=4)
            for got, expected in zip(hyps, b["results"]):
                self.assertEqual([h.tokens for h in got], [e["ids"] for e in expected])
                for h, e in zip(got, expected):
                    self.assertAlmostEqual(h.score, e["score"], delta=score_tolerance(e["score"], len(e["ids"])))

    def test_vocab_json_semantics(self):
        model, meta, tok, g = self.load("opus")
        unk = meta["tokens"]["unk"]
        self.assertIn(unk, g["sources"][0])                     # a piece missing from vocab.json -> <unk>
        pieces = tok.src_sp.encode(g["sources_text"][0], out_type=str)
        self.assertEqual(g["sources"][0][:-1], [tok.src_vocab.get(p, unk) for p in pieces])
        spm_ids = tok.src_sp.encode(g["sources_text"][0])
        self.assertNotEqual(g["sources"][0][:-1], spm_ids)      # ids are the JSON's, not the spm's
        self.assertEqual(g["sources"][0][-1], 0)

    def test_hf_layout_matches(self):
        _, meta, _, _ = self.load("opus")
        _, ours = checkpoint.read_checkpoint(os.path.join(FIXTURES, "opus", "model"))
        path = os.path.join(FIXTURES, "opus", "hf", "model.safetensors")
        with open(path, "rb") as f:
            raw = f.read()
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8:8 + n])
        self.assertEqual(header.pop("__metadata__"), {"format": "pt"})
        data = raw[8 + n:]
        hf = {k: np.frombuffer(data[v["data_offsets"][0]:v["data_offsets"][1]], dtype="<f4").reshape(v["shape"])
              for k, v in header.items()}
        expected = mf.hf_tensors(ours, meta["config"])
        self.assertEqual(set(hf), set(expected))
        for k in hf:
            np.testing.assert_array_equal(hf[k], expected[k])
        with open(os.path.join(FIXTURES, "opus", "hf", "config.json")) as f:
            cfg = json.load(f)
        self.assertEqual(cfg["pad_token_id"], cfg["vocab_size"] - 1)
        self.assertEqual(cfg["decoder_start_token_id"], cfg["pad_token_id"])
        self.assertEqual(cfg["activation_function"], "swish")

    def test_marian_npz_matches(self):
        _, meta, _, _ = self.load("opus")
        _, ours = checkpoint.read_checkpoint(os.path.join(FIXTURES, "opus", "model"))
        npz = np.load(os.path.join(FIXTURES, "opus", "marian", "model.npz"))
        v = meta["config"]["tgt_vocab_size"]
        wemb = npz["Wemb"]
        self.assertEqual(wemb.shape, (v - 1, 32))
        np.testing.assert_array_equal(np.vstack([wemb, np.zeros((1, 32), np.float32)]), ours["encoder.embed_tokens"])
        np.testing.assert_array_equal(np.append(npz["decoder_ff_logit_out_b"][0], 0), ours["output.bias"])
        np.testing.assert_array_equal(npz["encoder_l1_self_Wq"].T, ours["encoder.layers.0.self_attn.q_proj.weight"])
        np.testing.assert_array_equal(npz["decoder_l2_context_bo"][0], ours["decoder.layers.1.cross_attn.out_proj.bias"])
        np.testing.assert_array_equal(npz["decoder_l2_ffn_W2"].T, ours["decoder.layers.1.fc2.weight"])
        np.testing.assert_array_equal(npz["encoder_l2_ffn_ffn_ln_scale"][0], ours["encoder.layers.1.ffn_norm.weight"])
        yml = npz["special:model.yml"].tobytes()
        self.assertTrue(yml.endswith(b"\0") and b"transformer-ffn-activation: swish" in yml)

    def test_cli(self):
        model_dir = os.path.join(FIXTURES, "opus", "model")
        _, _, _, g = self.load("opus")
        text = "\n".join([g["sources_text"][0], "", g["sources_text"][2]]) + "\n"
        out = subprocess.run([sys.executable, os.path.join(TOOLS, "reference.py"), model_dir, "--beam", "1"],
                             input=text, capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.split("\n"), [g["greedy_text"][0], "", g["greedy_text"][2], ""])


if __name__ == "__main__":
    unittest.main()
