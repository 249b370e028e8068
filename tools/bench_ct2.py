#!/usr/bin/python3
"""CTranslate2 rows of `make bench` (tools/bench.py) and `make bench-ct2`: nmt and CTranslate2 on the same
weights, tokens and settings, runs alternating (nmt, CTranslate2, nmt, ...), when CTranslate2 is installed
under /opt/ctranslate2 (CTranslate2 4.8.1, built there by hand; never a dependency of nmt). Otherwise skipped,
with the reason.

  /usr/bin/python3 tools/bench_ct2.py --nmt build/nmt [--runs 3] [--parity-only]

Rows: {bundled model, synthetic OPUS-MT-sized model} x {f32, int8} x {greedy, beam 4}, batch 32, 2 threads:
target tokens/s, translate time (wall minus load, each engine's own clock), load time, peak RSS, nmt's
time over CTranslate2's (median of the alternating pairs' ratios), whether both generated the same number
of tokens and the share of identical lines (pieces). Both run one sentence a line (nmt --no-split) and
the same fixed length limit: nmt --max-length-a 0 --max-length-b L (L - 1 pieces + EOS at most),
CTranslate2 max_decoding_length L - 1; the synthetic model's L is its forced 32 steps.

The CTranslate2 side: tools/ct2_driver.cc (compiled here into build-bench/) and tools/ct2_convert.py (the
nmt checkpoint through CTranslate2's model spec; int8 by CTranslate2's own quantizer). The source pieces
come from the model's SentencePiece model in Python plus the EOS, as nmt's tokenizer makes them.
The parity check (also --parity-only): CTranslate2 f32 and nmt f32, greedy, 50 sentences, on the
synthetic model and on data/general-en-de (int8 weights: dequantized once into an f32 nmt checkpoint and
converted from there, so both engines hold the same values): the share of identical lines.
"""
import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_common import (DEFAULT_INPUT, DEFAULT_MODEL, PYTHON, ROOT, SYNTH_STEPS, TOOLS, WORK, int8_model, log,
                          read_input, run_measured, synthetic_model)

CT2 = os.environ.get("NMT_BENCH_CT2", "/opt/ctranslate2")
BUNDLED_MAX_LENGTH = 64   # the bundled model's fixed limit here (its own default is 1.5 x source + 10)
SYNTH_MAX_LENGTH = SYNTH_STEPS   # the synthetic model's forced length
# CTranslate2's OpenMP threads sleep between parallel regions unless OMP_WAIT_POLICY is set otherwise: with
# libgomp's default spinning, 2 threads on cores shared with other work took 52.7 s for 3 sentences where
# passive took 0.79 s (1 thread: 0.47 s). Set OMP_WAIT_POLICY=active on a quiet machine to give it its spin.
OMP_WAIT_POLICY = "passive"


def unavailable_reason(ct2=CT2):
    """None if CTranslate2 is usable here, else why not (the skipped rows say it)."""
    for rel in ("lib/libctranslate2.so", "include/ctranslate2/translator.h", "python/ctranslate2/specs"):
        if not os.path.exists(os.path.join(ct2, rel)):
            return (f"no {os.path.join(ct2, rel)}: CTranslate2 4.8.1 is not installed there (it is built by "
                    "hand; nmt's build never fetches or builds it)")
    return None


def driver(work=WORK, ct2=CT2):
    """build-bench/ct2_driver, compiled when missing or older than its source."""
    src = os.path.join(TOOLS, "ct2_driver.cc")
    out = os.path.join(work, "ct2_driver")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        os.makedirs(work, exist_ok=True)
        subprocess.run(["g++", "-O2", "-std=c++17", src, "-o", out, f"-I{ct2}/include", f"-L{ct2}/lib",
                        "-lctranslate2", f"-Wl,-rpath,{ct2}/lib"], check=True)
    return out


def _key(model_dir, extra):
    with open(os.path.join(model_dir, "model.json"), "rb") as f:
        return hashlib.sha256(f.read() + extra.encode()).hexdigest()[:12]


def ct2_model(model_dir, quantization, work=WORK):
    """The CTranslate2 twin of an nmt checkpoint ('float32' or 'int8'), converted once."""
    out = os.path.join(work, "ct2", f"{os.path.basename(os.path.normpath(model_dir))}-"
                                    f"{_key(model_dir, quantization)}-{quantization}")
    if not os.path.exists(os.path.join(out, "model.bin")):
        subprocess.run([PYTHON, os.path.join(TOOLS, "ct2_convert.py"), model_dir, out, "--quantization",
                        quantization, "--ct2", CT2], check=True)
    return out


def f32_twin(model_dir, work=WORK):
    """model_dir itself unless it holds int8 tensors; then an f32 nmt checkpoint of its dequantized values."""
    with open(os.path.join(model_dir, "model.json"), encoding="utf-8") as f:
        meta = json.load(f)
    if all(t["dtype"] != "i8" for t in meta["tensors"]):
        return model_dir
    out = os.path.join(work, "f32", f"{os.path.basename(os.path.normpath(model_dir))}-{_key(model_dir, 'f32')}")
    if not os.path.exists(os.path.join(out, "model.json")):
        sys.path.insert(0, TOOLS)
        import shutil
        from checkpoint import write_checkpoint
        from ct2_convert import read_weights
        _, tensors = read_weights(model_dir)
        os.makedirs(out, exist_ok=True)
        for name in {v for k, v in meta["tokenizer"].items() if k != "add_eos" and v}:
            shutil.copy(os.path.join(model_dir, name), os.path.join(out, name))
        decoding = meta["decoding"]
        write_checkpoint(out, meta["config"], meta["tokens"], decoding, meta["tokenizer"],
                         {k: tensors[k] for k in sorted(tensors)}, dtype="f32",
                         source_lang=meta.get("source_lang"), target_lang=meta.get("target_lang"))
    return out


def source_pieces(model_dir, lines, out_path):
    """The lines as nmt's tokenizer gives them to the model: SentencePiece pieces, then the EOS."""
    import sentencepiece as spm
    with open(os.path.join(model_dir, "model.json"), encoding="utf-8") as f:
        meta = json.load(f)
    tok = meta["tokenizer"]
    sp = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, tok["source_spm"]))
    eos = "</s>"
    with open(out_path, "w", encoding="utf-8") as f:
        for line in lines:
            pieces = sp.encode(line, out_type=str) + ([eos] if tok.get("add_eos", True) else [])
            f.write(" ".join(pieces) + "\n")
    return out_path


def decoding(model_dir):
    with open(os.path.join(model_dir, "model.json"), encoding="utf-8") as f:
        d = json.load(f)["decoding"]
    return d.get("length_penalty", 1.0), d.get("no_repeat_ngram_size", 0)


def run_nmt(run_measured, nmt, model, inp, tmp, beam, threads, max_length, extra=()):
    out, err = os.path.join(tmp, "ct2-nmt.jsonl"), os.path.join(tmp, "ct2-nmt.err")
    cmd = [nmt, "translate", "-m", model, "-i", inp, "-o", out, "-b", str(beam), "--batch-size", "32",
           "--threads", str(threads), "--stats", "--no-split", "--output-format", "jsonl",
           "--max-length-a", "0", "--max-length-b", str(max_length)] + list(extra)
    code, rss, _ = run_measured(cmd, os.path.join(tmp, "ct2-nmt.stdout"), err)
    stats = _last_json(err, cmd, code)
    with open(out, encoding="utf-8") as f:
        pieces = [" ".join(json.loads(line)["tokens"]) for line in f if line.strip()]
    return _result(stats, rss), pieces


def run_ct2(run_measured, model, compute_type, pieces_path, tmp, beam, threads, max_length, lp, ngram,
            mode="batch"):
    out, err = os.path.join(tmp, "ct2.out"), os.path.join(tmp, "ct2.err")
    cmd = ["sh", "-c", 'exec "$0" "$@" < "$PIECES"', driver(), model, compute_type, str(threads), str(beam),
           str(max_length - 1), str(lp), str(ngram), mode]
    env = dict(os.environ, PIECES=pieces_path, OMP_NUM_THREADS=str(threads))
    env.setdefault("OMP_WAIT_POLICY", OMP_WAIT_POLICY)
    code, rss, _ = run_measured(cmd, out, err, env=env)
    stats = _last_json(err, cmd, code)
    with open(out, encoding="utf-8") as f:
        pieces = [line.rstrip("\n") for line in f]
    return _result(stats, rss), pieces


def _last_json(err, cmd, code):
    with open(err, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {code}): {' '.join(lines[-5:])}")
    return json.loads([line for line in lines if line.startswith("{")][-1])


def _result(s, rss):
    return {"load_s": s["load_s"], "translate_s": s["translate_s"], "target_tokens": s["target_tokens"],
            "tokens_per_s": s["target_tokens"] / max(s["translate_s"], 1e-9), "peak_rss_mb": rss,
            "request_s": s.get("request_s")}


def same_share(a, b):
    n = max(len(a), len(b))
    return sum(1 for x, y in zip(a, b) if x == y) / n if n else 1.0


def compare(run_measured, nmt, label, nmt_model, ct2_dir, compute_type, lines, tmp, beam, threads, max_length,
            runs):
    """One row pair: nmt and CTranslate2 alternating `runs` times on the same pieces."""
    pieces = source_pieces(nmt_model, lines, os.path.join(tmp, "ct2-src.txt"))
    plain = os.path.join(tmp, "ct2-plain.txt")
    with open(plain, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    lp, ngram = decoding(nmt_model)
    raw = {"nmt": [], "CTranslate2": []}
    outputs = {}
    for _ in range(runs):
        r, outputs["nmt"] = run_nmt(run_measured, nmt, nmt_model, plain, tmp, beam, threads, max_length)
        raw["nmt"].append(r)
        r, outputs["CTranslate2"] = run_ct2(run_measured, ct2_dir, compute_type, pieces, tmp, beam, threads,
                                            max_length, lp, ngram)
        raw["CTranslate2"].append(r)
        log(f"[ct2] {label} {compute_type} beam {beam}: nmt {raw['nmt'][-1]['translate_s']:.2f} s, "
            f"CTranslate2 {r['translate_s']:.2f} s")
    med = {e: {k: statistics.median(x[k] for x in v) for k in ("load_s", "translate_s", "tokens_per_s",
                                                                "peak_rss_mb")} for e, v in raw.items()}
    pairs = [c["translate_s"] / n["translate_s"] for n, c in zip(raw["nmt"], raw["CTranslate2"])]
    return {"model": label, "dtype": "int8" if compute_type == "int8" else "f32", "beam": beam,
            "threads": threads, "sentences": len(lines), "max_length": max_length, "runs": raw, "median": med,
            "speedup": statistics.median(pairs), "pair_speedups": pairs,
            "rss_ratio": med["nmt"]["peak_rss_mb"] / med["CTranslate2"]["peak_rss_mb"],
            "tokens": {e: v[0]["target_tokens"] for e, v in raw.items()},
            "identical": same_share(outputs["nmt"], outputs["CTranslate2"])}


def ct2_rows(run_measured, nmt, int8_model, models, tmp, runs, threads=2, beams=(1, 4)):
    """models: (label, nmt model dir, lines, max length). int8_model: bench_common's (nmt convert)."""
    rows = []
    for label, model, lines, max_length in models:
        for dtype, quantization in (("f32", "float32"), ("int8", "int8")):
            nmt_model = model if dtype == "f32" else int8_model(nmt, model)
            ct2_dir = ct2_model(f32_twin(model), quantization)
            for beam in beams:
                rows.append(compare(run_measured, nmt, label, nmt_model, ct2_dir, quantization, lines, tmp, beam,
                                    threads, max_length, runs))
    return rows


def parity(run_measured, nmt, models, tmp, n=50):
    """Greedy, f32, first n lines: the share of lines identical between nmt and CTranslate2."""
    out = []
    for label, model, lines, max_length in models:
        twin = f32_twin(model)
        r = compare(run_measured, nmt, label, twin, ct2_model(twin, "float32"), "float32", lines[:n], tmp, 1, 2,
                    max_length, 1)
        out.append({"model": label, "sentences": len(lines[:n]), "identical": r["identical"], "tokens": r["tokens"]})
    return out


def ct2_table(rows, parities, loadavg):
    head = ("CTranslate2 (4.8.1, /opt/ctranslate2) against nmt on the same weights and source pieces, batch 32, "
            f"{rows[0]['threads'] if rows else 2} threads, one sentence a line, fixed length limit; runs alternating "
            f"(nmt, CTranslate2, ...), load average {loadavg[0]:.2f} at start, {loadavg[1]:.2f} at end; CTranslate2 "
            f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', OMP_WAIT_POLICY)}; "
            "nmt/CT2 = CTranslate2's translate time (wall minus load) over nmt's, median of the pairs.\n\n"
            "| model | weights | search | sentences | nmt tok/s | CT2 tok/s | nmt/CT2 | load nmt / CT2 (s) | "
            "peak RSS nmt / CT2 (MB) | RSS nmt/CT2 | tokens nmt / CT2 | identical lines |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    body = ""
    for r in rows:
        n, c = r["median"]["nmt"], r["median"]["CTranslate2"]
        body += (f"| {r['model']} | {r['dtype']} | {'greedy' if r['beam'] == 1 else 'beam ' + str(r['beam'])} | "
                 f"{r['sentences']} | {n['tokens_per_s']:,.0f} | {c['tokens_per_s']:,.0f} | {r['speedup']:.2f}x | "
                 f"{n['load_s']:.3f} / {c['load_s']:.3f} | {n['peak_rss_mb']:.0f} / {c['peak_rss_mb']:.0f} | "
                 f"{100 * r['rss_ratio']:.0f}% | {r['tokens']['nmt']:,} / {r['tokens']['CTranslate2']:,} | "
                 f"{100 * r['identical']:.1f}% |\n")
    tail = "".join(f"\nparity (greedy, f32, {p['sentences']} sentences, {p['model']}): {100 * p['identical']:.1f}% of "
                   f"lines identical; tokens nmt {p['tokens']['nmt']:,} / CT2 {p['tokens']['CTranslate2']:,}"
                   for p in parities)
    return head + body + tail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nmt", default=os.path.join(ROOT, "build", "nmt"))
    ap.add_argument("--model", default=DEFAULT_MODEL, help="the bundled model")
    ap.add_argument("--general", default=os.path.join(ROOT, "data", "general-en-de"), help="parity check's 2nd model")
    ap.add_argument("--input", default=DEFAULT_INPUT)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sentences", type=int, default=1000, help="bundled model's rows")
    ap.add_argument("--synthetic-sentences", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--beams", default="1,4")
    ap.add_argument("--parity-only", action="store_true")
    a = ap.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"CTranslate2 rows: skipped: {reason}")
        return
    nmt = os.path.abspath(a.nmt)
    lines = read_input(a.input, a.sentences)
    with open(os.path.join(a.model, "model.json"), encoding="utf-8") as f:
        spm_name = json.load(f)["tokenizer"]["source_spm"]
    synth = synthetic_model(os.path.join(a.model, spm_name), os.path.join(WORK, "synthetic-opus-mt"))
    synth_label = "synthetic OPUS-MT size"
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="nmt-bench-ct2-") as tmp:
        parities = parity(run_measured, nmt, [(synth_label, synth, lines, SYNTH_MAX_LENGTH),
                                                    ("general-en-de", a.general, lines, BUNDLED_MAX_LENGTH)], tmp)
        rows = [] if a.parity_only else ct2_rows(
            run_measured, nmt, int8_model,
            [(os.path.basename(os.path.normpath(a.model)), a.model, lines, BUNDLED_MAX_LENGTH),
             (synth_label, synth, lines[:a.synthetic_sentences], SYNTH_MAX_LENGTH)],
            tmp, a.runs, a.threads, [int(b) for b in a.beams.split(",")])
    print(ct2_table(rows, parities, (load_start, os.getloadavg()[0])))
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(WORK, "ct2-results.json"), "a", encoding="utf-8") as f:
        f.write(json.dumps({"rows": rows, "parity": parities}) + "\n")


if __name__ == "__main__":
    main()
