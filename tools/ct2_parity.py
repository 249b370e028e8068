#!/usr/bin/python3
"""`nmt convert --from ct2` against CTranslate2 itself: the share of identical lines and BLEU.

  /usr/bin/python3 tools/ct2_parity.py --nmt build/nmt [--ct2 /opt/ct2] [--lines 300] [--work DIR]
      [--variants post,pre] [--weights float32,int8] [--beams 1,4] [--max-decoding 64]

CTranslate2 (4.x, built by hand under --ct2: lib/, include/, python/; never a dependency of nmt) writes
model directories from the bundled model's weights through its own TransformerSpec (tools/ct2_convert.py):
  post  the model as it is: post-norm, its sinusoid stored as position encodings, shared and tied embeddings;
  pre   the same weights as a pre-norm model with final layer norms (identity), a network CTranslate2 stores
        for OpenNMT-py models (its translations are poor: the weights were trained post-norm; the
        comparison is of the arithmetic),
each saved float32 and int8 (CTranslate2's quantizer). nmt converts each directory (`nmt convert`; the int8
one twice: --dtype f32, dequantized, and the default, int8 kept) and translates the first --lines lines of
Multi30k test_2016_flickr (one sentence a line), greedy and beam 4, length penalty 1, at most --max-decoding
tokens besides the EOS on both sides (CTranslate2's max_decoding_length; nmt's --max-length counts the EOS, so
one more); CTranslate2 translates the same SentencePiece pieces (tools/ct2_driver.cc). Rows:
  float32 weights, both compute float32; int8 weights, both compute float32; int8 weights, both int8.
For each: identical lines (pieces) and BLEU of each engine's detokenized output against the references
(../shared/tools/bleu.py). Both engines' n-best lists stay in --work as VARIANT-WEIGHTS-COMPUTE-bBEAM.nmt.jsonl
and .ct2.tsv, for tools/ct2_divergence.py. Run it when no one else is building: it is CPU-bound but reports no timings.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
import ct2_convert  # noqa: E402

SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def read_lines(path, n):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [next(f).rstrip("\n") for _ in range(n)]


def make_ct2(specs, model_dir, variant, quantization, out):
    """The bundled model as a CTranslate2 directory: variant post or pre."""
    common_spec, transformer_spec = specs
    meta, w = ct2_convert.read_weights(model_dir)
    if variant == "pre":
        meta["config"].update(norm="pre", final_norm=True)
        d = meta["config"]["d_model"]
        for stack in ("encoder", "decoder"):
            w[f"{stack}.final_norm.weight"] = np.ones(d, np.float32)
            w[f"{stack}.final_norm.bias"] = np.zeros(d, np.float32)
    spec = ct2_convert.build_spec(meta, w, common_spec, transformer_spec)
    src, tgt = ct2_convert.vocabularies(model_dir, meta)
    spec.register_source_vocabulary(src)
    spec.register_target_vocabulary(tgt)
    t = meta["tokens"]
    spec.config.unk_token = tgt[t["unk"]]
    spec.config.eos_token = tgt[t["eos"]]
    spec.config.bos_token = tgt[t["decoder_start"]]
    spec.config.decoder_start_token = tgt[t["decoder_start"]]
    spec.config.add_source_eos = True
    spec.config.layer_norm_epsilon = meta["config"]["layer_norm_eps"]
    spec.validate()
    spec.optimize(quantization=quantization)
    os.makedirs(out, exist_ok=True)
    spec.save(out)
    spm = os.path.join(model_dir, meta["tokenizer"]["source_spm"])
    return out, spm


def nmt_convert(nmt, ct2_dir, spm, out, dtype=None):
    cmd = [nmt, "convert", "--from", "ct2", ct2_dir, "-o", out, "--source-spm", spm, "--target-spm", spm,
           "--source-lang", "en", "--target-lang", "de", "--force"]
    if dtype:
        cmd += ["--dtype", dtype]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def nmt_translate(nmt, model, plain, beam, max_decoding, out):
    """nmt's best pieces and texts a line; `out` keeps its JSON lines with the n-best (tools/ct2_divergence.py)."""
    subprocess.run([nmt, "translate", "-m", model, "-i", plain, "-o", out, "-b", str(beam), "--n-best", str(beam),
                    "--no-split", "--output-format", "jsonl", "--length-penalty", "1", "--max-length-a", "0",
                    "--max-length-b", str(max_decoding + 1), "--max-length", str(max_decoding + 1),
                    "--threads", "2"], check=True, capture_output=True)
    with open(out, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [" ".join(r["tokens"]) for r in rows], [r["text"] for r in rows]


def ct2_translate(driver, model, pieces_path, compute_type, beam, max_decoding, out):
    """CTranslate2's best pieces a line; `out` keeps its n-best with their scores (ct2_driver's "scores")."""
    with open(pieces_path, encoding="utf-8") as inp, open(out, "w", encoding="utf-8") as o:
        subprocess.run([driver, model, compute_type, "2", str(beam), str(max_decoding), "1", "0", "scores"],
                       stdin=inp, stdout=o, stderr=subprocess.DEVNULL, check=True,
                       env=dict(os.environ, OMP_NUM_THREADS="2"))
    with open(out, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t")[1] for line in f]


def bleu(hyps, refs, work):
    hyp_path, ref_path = os.path.join(work, "hyp.txt"), os.path.join(work, "ref.txt")
    for path, lines in ((hyp_path, hyps), (ref_path, refs)):
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
    out = subprocess.run([sys.executable, os.path.join(SHARED, "tools", "bleu.py"), hyp_path, ref_path],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1]) if out.split()[-1].replace(".", "", 1).isdigit() else out.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nmt", default=os.path.join(ROOT, "build", "nmt"))
    ap.add_argument("--ct2", default="/opt/ct2")
    ap.add_argument("--model", default=os.path.join(ROOT, "data", "multi30k-en-de"))
    ap.add_argument("--input", default=os.path.join(SHARED, "data", "multi30k", "test_2016_flickr.en.gz"))
    ap.add_argument("--reference", default=os.path.join(SHARED, "data", "multi30k", "test_2016_flickr.de.gz"))
    ap.add_argument("--lines", type=int, default=300)
    ap.add_argument("--work", default=None)
    ap.add_argument("--variants", default="post,pre")
    ap.add_argument("--weights", default="float32,int8")
    ap.add_argument("--beams", default="1,4")
    ap.add_argument("--max-decoding", type=int, default=64)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="ct2-parity-")
    os.makedirs(work, exist_ok=True)
    driver = os.path.join(work, "ct2_driver")
    if not os.path.exists(driver):
        subprocess.run(["g++", "-O2", "-std=c++17", os.path.join(TOOLS, "ct2_driver.cc"), "-o", driver,
                        f"-I{a.ct2}/include", f"-L{a.ct2}/lib", "-lctranslate2", f"-Wl,-rpath,{a.ct2}/lib"],
                       check=True)
    specs = ct2_convert.import_ct2_specs(a.ct2)
    lines = read_lines(a.input, a.lines)
    refs = read_lines(a.reference, a.lines)
    plain = os.path.join(work, "src.txt")
    with open(plain, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    rows = []
    for variant in a.variants.split(","):
        for quantization in a.weights.split(","):
            ct2_dir, spm = make_ct2(specs, a.model, variant, quantization, os.path.join(work, f"{variant}-{quantization}"))
            import sentencepiece
            sp = sentencepiece.SentencePieceProcessor(model_file=spm)
            pieces_path = os.path.join(work, "pieces.txt")
            with open(pieces_path, "w", encoding="utf-8") as f:
                f.write("".join(" ".join(sp.encode(line, out_type=str)) + "\n" for line in lines))
            runs = [("float32", nmt_convert(a.nmt, ct2_dir, spm, ct2_dir + "-nmt-f32", "f32"))]
            if quantization == "int8":
                runs.append(("int8", nmt_convert(a.nmt, ct2_dir, spm, ct2_dir + "-nmt-int8")))
            for compute, nmt_model in runs:
                for beam in (int(b) for b in a.beams.split(",")):
                    name = os.path.join(work, f"{variant}-{quantization}-{compute}-b{beam}")
                    nmt_pieces, nmt_text = nmt_translate(a.nmt, nmt_model, plain, beam, a.max_decoding,
                                                         name + ".nmt.jsonl")
                    ct2_pieces = ct2_translate(driver, ct2_dir, pieces_path, compute, beam, a.max_decoding,
                                               name + ".ct2.tsv")
                    same = sum(x == y for x, y in zip(nmt_pieces, ct2_pieces)) / len(lines)
                    ct2_text = [sp.decode(p.split(" ")) if p else "" for p in ct2_pieces]
                    row = {"variant": variant, "weights": quantization, "compute": compute, "beam": beam,
                           "lines": len(lines), "identical": round(same, 4),
                           "bleu_nmt": bleu(nmt_text, refs, work), "bleu_ct2": bleu(ct2_text, refs, work)}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    print("| model | weights | compute | beam | identical lines | BLEU nmt | BLEU CTranslate2 |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['variant']}-norm | {r['weights']} | {r['compute']} | {r['beam']} | {100 * r['identical']:.1f}% "
              f"| {r['bleu_nmt']} | {r['bleu_ct2']} |")


if __name__ == "__main__":
    main()
