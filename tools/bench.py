#!/usr/bin/python3
"""`make bench`: nmt against the PyTorch reference (tools/bench_reference.py), same model, input and settings.

  /usr/bin/python3 tools/bench.py --nmt build/nmt [--model data/multi30k-en-de] [--quick]

For each engine x search (greedy = beam 1, beam 4) x threads (1, 2), batch 32, on the 1,000 sentences
of Multi30k test_2016_flickr.en: target tokens/s (SentencePiece pieces generated, EOS excluded, model load
excluded), sentences/s, model load time, peak RSS and nmt's tokens/s over each baseline's. Every
measurement is run --runs times (3) and the median reported. Engines:
  * nmt;
  * PyTorch: tools/bench_reference.py --style hf, the baseline the benchmark's targets are set against:
    what Hugging Face `generate` does for a Python user translating the file in chunks of 32 lines;
  * PyTorch sorted: --style sorted, the same model with nmt's own batching tricks (length-sorted batches,
    finished sentences dropped), a stronger baseline shown beside it (--baselines picks which run).

Also:
  * a synthetic OPUS-MT-sized model (6+6 layers, d 512, 8 heads, FFN 2048, shared/tied vocab of 58,101,
    output bias, swish, sinusoidal-concat, post-norm; random weights, generated once into
    build-bench/synthetic-opus-mt/) whose EOS logit is pushed far down, so every sentence runs exactly
    max_length_b = 32 decoder steps (31 pieces + the forced EOS); 200 sentences, beam 4 and greedy,
    2 and 1 threads, the baselines on its first row only (beam 4, 2 threads: they are slow there);
  * this machine's sgemm ceiling through core::gemm (the sgemm_peak binary next to nmt), against which
    the engine's achieved GEMM rate (--stats: gemm_gflop / gemm_s) is reported, and against the core's
    fp32 FMA peak (same binary: a register-only loop; OpenBLAS may not have kernels for a newer CPU);
  * the fraction of output lines identical between nmt and PyTorch, and whether nmt's output is the same
    for every run and thread count;
  * nmt int8 (unless --no-int8): nmt on each model re-quantized with `nmt convert --from nmt --dtype int8`
    (made once into build-bench/int8/), with its speed over nmt f32, the share of lines identical to nmt's,
    and its GEMM GOP/s against the core's int8 peak (the int8_peak binary next to nmt).

  * paragraphs (--paragraph-sentences, 300): the same sentences three per line (split) and one per line
    (--no-split), sentences/s of each and the ratio, runs alternating (--paragraphs-only: this row alone).
  * shortlist (tools/bench_shortlist.py): --shortlist off vs on, beam 4, 2 threads, on the bundled and the
    synthetic model, the shortlist built from Multi30k train: tokens/s, ratio, peak RSS, identical lines.
  * CTranslate2 (tools/bench_ct2.py, when built under /opt/ctranslate2; skipped with the reason otherwise):
    nmt and CTranslate2 on the same weights and pieces, f32 and int8, greedy and beam 4, 2 threads, runs
    alternating: tokens/s, wall minus load, load time, peak RSS, the ratios and identical lines.
  * documents (tools/bench_documents.py): 300 sentences as plain lines and as an HTML page, the page's rate
    over the plain one (the issue's bar: at least 0.8) and whether its paragraphs read as the plain lines.

Prints one markdown table; appends this run (machine, commit, raw runs, medians, table) to the "runs" list
of build-bench/results.json, outside the tree (--quick: build-bench/results-quick.json, first 100 sentences,
1 run each), and writes the table of a full run to bench/latest/MACHINE.md, one file per machine, the
figures the repository keeps.
Timing runs are meaningless while something else loads the CPU: the load average is recorded, and a
warning is printed when it is high.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import bench_ct2  # the CTranslate2 rows (tools/bench_ct2.py)
import bench_documents  # the documents row (tools/bench_documents.py)
import bench_shortlist  # the shortlist rows (tools/bench_shortlist.py)
from bench_common import (DEFAULT_INPUT, DEFAULT_MODEL, PYTHON, ROOT, TIME, WORK, int8_model, log, read_input,
                          run_measured, synthetic_model)
from bench_engines import (BASELINES, NMT_ENGINES, identical_fraction, int8_peak, median_of, paragraph_row,
                           paragraph_speed, paragraphs_only, parse_list, read_lines, run_engine)
from bench_report import folder_mb, git_info, machine_info, make_table, model_info, sgemm_peak, write_latest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nmt", default=os.path.join(ROOT, "build", "nmt"), help="the nmt binary")
    ap.add_argument("--sgemm-peak", default=None, help="the sgemm_peak binary (default: next to --nmt)")
    ap.add_argument("--model", default=DEFAULT_MODEL, help="model directory (checkpoint v1)")
    ap.add_argument("--input", default=DEFAULT_INPUT, help="source sentences, plain or .gz")
    ap.add_argument("--python", default=PYTHON, help="python with torch, for tools/bench_reference.py")
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement (median reported)")
    ap.add_argument("--baselines", default=",".join(BASELINES),
                    help=f"which baselines run, comma-separated, from: {', '.join(BASELINES)} (default: all)")
    ap.add_argument("--beams", default="1,4")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--sentences", type=int, default=None, help="use the first N sentences (default: all)")
    ap.add_argument("--synthetic-sentences", type=int, default=200)
    ap.add_argument("--synthetic-threads", default=None,
                    help="threads for the synthetic OPUS-MT-sized rows (default 2,1; --quick 2); '' skips them")
    ap.add_argument("--synthetic-beams", default="4,1",
                    help="beams of the synthetic rows; the baselines run on the first (beam, threads) only")
    ap.add_argument("--synthetic-runs", type=int, default=None, help="default: --runs")
    ap.add_argument("--budget-min", type=float, default=10.0,
                    help="synthetic rows after the first get the runs that fit in this many minutes, counted "
                         "from their start (0: no limit)")
    ap.add_argument("--paragraph-sentences", type=int, default=300,
                    help="the paragraphs row: these sentences one per line vs three per line (0: skip)")
    ap.add_argument("--paragraphs-only", action="store_true",
                    help="only the paragraphs row (--runs runs each), printed, not appended to the results")
    ap.add_argument("--quick", action="store_true", help="smoke run: 100 sentences, 1 run each, 64 synthetic")
    ap.add_argument("--no-int8", action="store_true", help="skip the nmt int8 rows")
    ap.add_argument("--no-ct2", action="store_true", help="skip the CTranslate2 rows (tools/bench_ct2.py)")
    ap.add_argument("--out", default=None, help="results JSON (default: build-bench/results.json; "
                                                "--quick: build-bench/results-quick.json)")
    args = ap.parse_args()
    baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
    if not baselines or any(b not in BASELINES for b in baselines):
        sys.exit(f"bench: --baselines takes a comma-separated list from: {', '.join(BASELINES)}")
    engines = ["nmt"] + ([] if args.no_int8 else ["nmt int8"]) + baselines
    if args.quick:
        args.runs, args.sentences = 1, args.sentences or 100
        args.synthetic_sentences = min(args.synthetic_sentences, 64)   # 2 batches: both threads busy
    if args.synthetic_threads is None:
        args.synthetic_threads = "2" if args.quick else "2,1"
    synth_runs = args.synthetic_runs or args.runs
    out_json = args.out or os.path.join(WORK, "results-quick.json" if args.quick else "results.json")
    args.nmt = os.path.abspath(args.nmt)
    peak_bin = args.sgemm_peak or os.path.join(os.path.dirname(args.nmt), "sgemm_peak")
    if not os.path.exists(os.path.join(args.model, "model.json")):
        sys.exit(f"bench: no model at {args.model} (--model DIR; tests/fixtures/opus/model for a smoke run)")
    for path in (args.nmt, args.python, args.input, TIME):
        if not os.path.exists(path):
            sys.exit(f"bench: {path} not found")

    if args.paragraphs_only:
        return paragraphs_only(args)
    started = time.time()
    machine = machine_info()
    if machine["loadavg_start"] > 0.5:
        log(f"warning: load average {machine['loadavg_start']:.2f} before starting: timings will be noisy")
    if subprocess.run(["pgrep", "-f", "tools/train.py"], capture_output=True).returncode == 0:
        log("warning: a tools/train.py process is running: timings will be meaningless")
    os.makedirs(WORK, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="nmt-bench-") as tmp:
        # The input, gunzipped (and cut) into a temp file.
        lines = read_input(args.input, args.sentences)
        inp = os.path.join(tmp, "input.txt")
        with open(inp, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        synth_inp = os.path.join(tmp, "input-synthetic.txt")
        with open(synth_inp, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines[:args.synthetic_sentences]))

        log("measuring the sgemm ceiling ...")
        peak = sgemm_peak(peak_bin, args.quick)
        i8peak = None if args.no_int8 else int8_peak(os.path.join(os.path.dirname(args.nmt), "int8_peak"), args.quick)

        # (model label, model dir, input, beam, threads, runs)
        main_label = os.path.basename(os.path.normpath(args.model))
        if main_label == "model":
            main_label = os.path.basename(os.path.dirname(os.path.normpath(args.model)))
        configs = [(main_label, args.model, inp, b, t, args.runs)
                   for b in parse_list(args.beams) for t in parse_list(args.threads)]
        n_main = len(configs)
        synth_dir = None
        if parse_list(args.synthetic_threads):
            with open(os.path.join(args.model, "model.json"), encoding="utf-8") as f:
                spm_name = json.load(f)["tokenizer"]["source_spm"]
            synth_dir = synthetic_model(os.path.join(args.model, spm_name), os.path.join(WORK, "synthetic-opus-mt"))
            synth_label = f"synthetic OPUS-MT size ({len(lines[:args.synthetic_sentences])} sent.)"
            configs += [(synth_label, synth_dir, synth_inp, b, t, synth_runs)
                        for b in parse_list(args.synthetic_beams) for t in parse_list(args.synthetic_threads)]

        # The baselines are slow on the synthetic model: they run on its first row only.
        config_engines = [engines if ci <= n_main else [e for e in engines if e in NMT_ENGINES]
                          for ci in range(len(configs))]
        args.int8_dirs = {} if args.no_int8 else {d: int8_model(args.nmt, d) for d in sorted({c[1] for c in configs})}
        # Warm-up (page cache, .pyc): one sentence through each engine and model, not timed.
        warm = os.path.join(tmp, "warm.txt")
        with open(warm, "w", encoding="utf-8") as f:
            f.write(lines[0] + "\n")
        for model_dir in sorted({c[1] for c in configs}):
            for engine in engines:
                run_engine(engine, args, model_dir, warm, os.path.join(tmp, "warm.out"), 1, 1, tmp)

        raw = {(c, e): [] for c in range(len(configs)) for e in engines}
        outputs = {}
        notes = []
        progress = {"done": 0}

        def measure(ci, rep):
            label, model_dir, src, beam, threads, _ = configs[ci]
            for engine in config_engines[ci]:
                out = os.path.join(tmp, f"out-{ci}-{engine}-{rep}.txt")
                r = run_engine(engine, args, model_dir, src, out, beam, threads, tmp)
                raw[(ci, engine)].append(r)
                outputs[(ci, engine, rep)] = out
                progress["done"] += 1
                log(f"[{progress['done']}] {label} {engine} beam {beam} threads {threads} run {rep + 1}: "
                    f"{r['tokens_per_s']:.0f} tok/s, load {r['load_s']:.2f} s, {r['peak_rss_mb']:.0f} MB "
                    f"({time.time() - started:.0f} s elapsed)")

        # The main rows: rep-major, engines alternating, so drift hits every row alike.
        for rep in range(args.runs):
            for ci in range(n_main):
                measure(ci, rep)
        # The synthetic rows one after the other; the first always runs, later ones (fewer threads: slower)
        # get the runs that fit in --budget-min, estimated from the previous one's nmt time per run.
        previous = None     # (threads, seconds per run of the nmt engines)
        budget_started = None
        for ci in range(n_main, len(configs)):
            label, _, _, _, threads, runs = configs[ci]
            if previous and args.budget_min > 0:
                budget_started = budget_started or time.time()
                remaining = args.budget_min * 60 - (time.time() - budget_started)
                estimate = previous[1] * max(1.0, previous[0] / threads)
                fit = max(0, min(runs, int(remaining // estimate)))
                if fit < runs:
                    notes.append(f"{label} threads {threads}: {fit} of {runs} runs (time budget "
                                 f"{args.budget_min:g} min, about {estimate:.0f} s per run)")
                runs = fit
            for rep in range(runs):
                measure(ci, rep)
            if runs:
                nmt_s = sum(r["wall_s"] for e in NMT_ENGINES if e in config_engines[ci] for r in raw[(ci, e)])
                previous = (threads, nmt_s / runs)

        # Rows, ratios, output agreement.
        rows = []
        for ci, (label, model_dir, src, beam, threads, _) in enumerate(configs):
            if not raw[(ci, "nmt")]:
                continue        # skipped: no time left
            row_engines = config_engines[ci]
            row_baselines = [b for b in baselines if b in row_engines]
            medians = {e: median_of(raw[(ci, e)]) for e in row_engines}
            ratios = {b: medians["nmt"]["tokens_per_s"] / medians[b]["tokens_per_s"] for b in row_baselines}
            agreement = {b: identical_fraction(outputs[(ci, "nmt", 0)], outputs[(ci, b, 0)]) for b in row_baselines}
            int8_ratios = int8_agreement = None
            if "nmt int8" in row_engines:
                int8_ratios = {"nmt": medians["nmt int8"]["tokens_per_s"] / medians["nmt"]["tokens_per_s"],
                               "peak_rss": medians["nmt int8"]["peak_rss_mb"] / medians["nmt"]["peak_rss_mb"],
                               "folder": folder_mb(args.int8_dirs[model_dir]) / folder_mb(model_dir)}
                int8_agreement = {"nmt": identical_fraction(outputs[(ci, "nmt int8", 0)], outputs[(ci, "nmt", 0)])}
            for engine in row_engines:
                if engine == "nmt int8":
                    rows.append({"model": label, "model_dir": os.path.relpath(args.int8_dirs[model_dir], ROOT),
                                 "engine": engine, "beam": beam, "threads": threads, "batch_size": args.batch_size,
                                 "median": medians[engine], "runs": raw[(ci, engine)], "ratios": int8_ratios,
                                 "identical": {b: a[0] for b, a in int8_agreement.items()},
                                 "identical_lines": {b: a[1:] for b, a in int8_agreement.items()}})
                    continue
                rows.append({"model": label, "model_dir": os.path.relpath(os.path.abspath(model_dir), ROOT),
                             "engine": engine, "beam": beam, "threads": threads, "batch_size": args.batch_size,
                             "median": medians[engine], "runs": raw[(ci, engine)],
                             "ratios": ratios if engine == "nmt" else None,
                             "identical": {b: a[0] for b, a in agreement.items()} if engine == "nmt" else None,
                             "identical_lines": {b: a[1:] for b, a in agreement.items()} if engine == "nmt" else None})
            tok = {e: raw[(ci, e)][0]["target_tokens"] for e in row_engines}
            if "nmt int8" in row_engines and tok["nmt int8"] != tok["nmt"]:
                notes.append(f"{label} beam {beam} threads {threads}: target tokens nmt {tok['nmt']}, "
                             f"nmt int8 {tok['nmt int8']}")
            for b, (_, same, n) in agreement.items():
                if same != n:
                    notes.append(f"{label} beam {beam} threads {threads}: {n - same} of {n} lines differ "
                                 f"between nmt and {b}")
                if tok["nmt"] != tok[b]:
                    notes.append(f"{label} beam {beam} threads {threads}: target tokens nmt {tok['nmt']}, "
                                 f"{b} {tok[b]}")
        # nmt must give the same output for every run and thread count of a (model, beam).
        groups = {}
        for (ci, engine, rep), path in outputs.items():
            if engine in NMT_ENGINES:
                groups.setdefault((engine, configs[ci][1], configs[ci][3]), []).append(path)
        nmt_deterministic = True
        for (engine, model_dir, beam), paths in sorted(groups.items()):
            first = read_lines(paths[0])
            if any(read_lines(p) != first for p in paths[1:]):
                nmt_deterministic = False
                notes.append(f"{engine} output differs between runs/threads ({os.path.basename(model_dir)}, beam {beam})")

        paragraphs = None
        if args.paragraph_sentences >= 3:
            beam, threads = parse_list(args.beams)[-1], parse_list(args.threads)[-1]
            paragraphs = paragraph_speed(args, lines, tmp, beam, threads)
        shortlists = [bench_shortlist.shortlist_speed(run_measured, args.nmt, m, WORK, src, tmp, 4, 2, args.batch_size,
                                                      args.runs, label)
                      for label, m, src in [(main_label, args.model, inp)] +
                      ([(synth_label, synth_dir, synth_inp)] if synth_dir else [])]
        documents = bench_documents.document_speed(args.nmt, args.model, lines, tmp, parse_list(args.beams)[-1],
                                                   parse_list(args.threads)[-1], args.runs)
        ct2_skipped = "--no-ct2" if args.no_ct2 else bench_ct2.unavailable_reason()
        ct2_load = os.getloadavg()[0]
        ct2_rows = [] if ct2_skipped else bench_ct2.ct2_rows(
            run_measured, args.nmt, int8_model, [(main_label, args.model, lines, bench_ct2.BUNDLED_MAX_LENGTH)] +
            ([(synth_label, synth_dir, lines[:args.synthetic_sentences], bench_ct2.SYNTH_MAX_LENGTH)] if synth_dir
             else []), tmp, args.runs)

    table = make_table(rows, peak, baselines, i8peak)
    if paragraphs:
        table += "\n\n" + paragraph_row(paragraphs)
    table += "\n\n" + "\n".join(bench_shortlist.shortlist_row(s) for s in shortlists)
    table += "\n\n" + bench_documents.document_row(documents)
    table += "\n\n" + (f"CTranslate2 rows: skipped: {ct2_skipped}" if ct2_skipped else
                       bench_ct2.ct2_table(ct2_rows, [], (ct2_load, os.getloadavg()[0])))
    machine["loadavg_end"] = os.getloadavg()[0]
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": args.quick, "duration_s": round(time.time() - started, 1),
        "machine": machine, "git": git_info(),
        "nmt": os.path.relpath(args.nmt, ROOT),
        "input": {"file": os.path.basename(args.input), "sentences": len(lines),
                  "synthetic_sentences": len(lines[:args.synthetic_sentences])},
        "settings": {"baselines": {b: BASELINES[b] for b in baselines}, "runs": args.runs,
                     "synthetic_runs": synth_runs, "batch_size": args.batch_size,
                     "budget_min": args.budget_min},
        "models": {os.path.basename(os.path.normpath(m)): model_info(m)
                   for m in sorted({c[1] for c in configs} | set(args.int8_dirs.values()))},
        "int8_peak": i8peak,
        "sgemm_peak": peak, "nmt_deterministic": nmt_deterministic, "notes": notes,
        "rows": rows, "paragraphs": paragraphs, "documents": documents, "shortlists": shortlists,
        "ct2": {"skipped": ct2_skipped, "rows": ct2_rows},
        "table": table,
    }
    history = {"description": "make bench (tools/bench.py): one entry per run, newest last", "runs": []}
    if os.path.exists(out_json):
        with open(out_json, encoding="utf-8") as f:
            history = json.load(f)
    history["runs"].append(result)
    os.makedirs(os.path.dirname(out_json), exist_ok=True)
    with open(out_json + ".tmp", "w", encoding="utf-8") as f:
        json.dump(history, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(out_json + ".tmp", out_json)
    latest = None if args.quick else write_latest(result)

    sys.stderr.flush()
    print(table)
    print()
    for n in notes:
        print(f"note: {n}")
    print(f"nmt output identical across runs and thread counts: {'yes' if nmt_deterministic else 'NO'}")
    print(f"load average {machine['loadavg_start']:.2f} at start, {machine['loadavg_end']:.2f} at end; "
          f"{result['duration_s']:.0f} s; results appended to {os.path.relpath(out_json, ROOT)}")
    if latest:
        print(f"latest figures for this machine: {os.path.relpath(latest, ROOT)}")


if __name__ == "__main__":
    main()
