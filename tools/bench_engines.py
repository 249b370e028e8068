"""One measurement of `make bench` (tools/bench.py): an engine run on a model and input, timed, and the
paragraphs row; the medians and the output agreement between engines.
"""
import json
import os
import re
import statistics
import subprocess
import tempfile

from bench_common import TOOLS, log, read_input, run_measured

BASELINES = {"PyTorch": "hf", "PyTorch sorted": "sorted"}   # engine name -> bench_reference.py --style
NMT_ENGINES = ("nmt", "nmt int8")


def parse_list(text):
    return [int(x) for x in text.split(",") if x.strip()]


# ----------------------------------------------------------------------------------------------
# Running one measurement

def last_json_line(path, what):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f if line.strip().startswith("{")]
    if not lines:
        raise RuntimeError(f"{what}: no JSON line in {path}")
    return json.loads(lines[-1])


def fail(what, cmd, code, stderr_path):
    with open(stderr_path, encoding="utf-8", errors="replace") as f:
        tail = f.read()[-3000:]
    raise RuntimeError(f"{what} failed (exit {code}): {' '.join(cmd)}\n{tail}")


def int8_peak(path, quick):
    if not os.path.exists(path):
        log(f"warning: {path} not found (build the int8_peak target): no int8 ceiling")
        return None
    out = subprocess.run([path, "2" if quick else "5"], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_engine(engine, args, model, inp, out, beam, threads, tmp):
    """One run of one engine; returns a dict of numbers (load_s, translate_s, tokens_per_s, ...)."""
    err = os.path.join(tmp, "stderr.txt")
    so = os.path.join(tmp, "stdout.txt")
    if engine == "nmt int8":
        model = args.int8_dirs[model]
    if engine in NMT_ENGINES:
        cmd = [args.nmt, "translate", "-m", model, "-i", inp, "-o", out, "-b", str(beam),
               "--batch-size", str(args.batch_size), "--threads", str(threads), "--stats"]
        code, rss, wall = run_measured(cmd, so, err)
        if code != 0:
            fail("nmt", cmd, code, err)
        s = last_json_line(err, "nmt --stats")
    else:
        cmd = [args.python, os.path.join(TOOLS, "bench_reference.py"), model, "--input", inp, "--beam", str(beam),
               "--batch-size", str(args.batch_size), "--threads", str(threads), "--output", out,
               "--style", BASELINES[engine]]
        code, rss, wall = run_measured(cmd, so, err)
        if code != 0:
            fail("bench_reference.py", cmd, code, err)
        s = last_json_line(so, "bench_reference.py")
    r = {"load_s": s["load_s"], "translate_s": s["translate_s"], "sentences": s["sentences"],
         "target_tokens": s["target_tokens"], "tokens_per_s": s["target_tokens"] / max(s["translate_s"], 1e-9),
         "sentences_per_s": s["sentences"] / max(s["translate_s"], 1e-9), "peak_rss_mb": rss, "wall_s": wall}
    if engine in NMT_ENGINES:
        r["gemm_gflop"], r["gemm_s"] = s.get("gemm_gflop"), s.get("gemm_s")
        if s.get("threads") != threads:
            raise RuntimeError(f"nmt ran with {s.get('threads')} threads, asked for {threads}")
    return r


def paragraph_speed(args, lines, tmp, beam, threads):
    """Sentences/s of the same sentences one per line (--no-split) and three per line (split), runs
    alternating; the paragraph file must translate at about the same rate (the sentences of a read window
    are batched together whatever their lines). The sentences are those that end in sentence-final
    punctuation, so both files translate the same sentences (checked: the outputs agree); the ratio is
    the median of each adjacent pair's, which drift in the machine's speed moves less than a ratio of
    medians."""
    ended = [s for s in lines if re.search(r"[.!?\u2026][\"'\u201d\u2019)\]]*$", s.strip())]
    n = min(len(ended), args.paragraph_sentences) // 3 * 3
    sentences = ended[:n]
    one = os.path.join(tmp, "para-one-per-line.txt")
    three = os.path.join(tmp, "para-three-per-line.txt")
    with open(one, "w", encoding="utf-8") as f:
        f.write("".join(s + "\n" for s in sentences))
    with open(three, "w", encoding="utf-8") as f:
        f.write("".join(" ".join(sentences[i:i + 3]) + "\n" for i in range(0, n, 3)))
    rates = {"sentences": [], "paragraphs": []}
    outputs = {}
    for rep in range(args.runs):
        for kind, src, extra in (("sentences", one, ["--no-split"]), ("paragraphs", three, [])):
            cmd = [args.nmt, "translate", "-m", args.model, "-i", src, "-o", os.path.join(tmp, "para.out"),
                   "-b", str(beam), "--batch-size", str(args.batch_size), "--threads", str(threads), "--stats"] + extra
            err = os.path.join(tmp, "para.err")
            code, _, _ = run_measured(cmd, os.path.join(tmp, "para.stdout"), err)
            if code != 0:
                fail("nmt", cmd, code, err)
            s = last_json_line(err, "nmt --stats")
            rates[kind].append(n / max(s["translate_s"], 1e-9))
            with open(os.path.join(tmp, "para.out"), encoding="utf-8") as f:
                outputs[kind] = " ".join(f.read().split("\n"))
            log(f"[paragraphs] {kind} run {rep + 1}: {rates[kind][-1]:.1f} sentences/s")
    med = {k: statistics.median(v) for k, v in rates.items()}
    pairs = [p / s for p, s in zip(rates["paragraphs"], rates["sentences"])]
    return {"sentences": n, "beam": beam, "threads": threads, "runs": rates, "median_sentences_per_s": med,
            "pair_ratios": pairs, "ratio": statistics.median(pairs),
            "same_output": outputs["sentences"].strip() == outputs["paragraphs"].strip()}


def paragraph_row(p):
    return (f"paragraphs ({p['sentences']} sentences, beam {p['beam']}, {p['threads']} threads): three "
            f"per line {p['median_sentences_per_s']['paragraphs']:.1f} sentences/s, one per line "
            f"{p['median_sentences_per_s']['sentences']:.1f} sentences/s: {p['ratio']:.2f}x (median of "
            f"alternating pairs){'' if p['same_output'] else '; OUTPUTS DIFFER'}")


def paragraphs_only(args):
    """--paragraphs-only: the paragraphs row alone, at the last --beams and --threads values."""
    lines = read_input(args.input, args.sentences)
    with tempfile.TemporaryDirectory(prefix="nmt-bench-") as tmp:
        p = paragraph_speed(args, lines, tmp, parse_list(args.beams)[-1], parse_list(args.threads)[-1])
    print(paragraph_row(p))
    print(json.dumps(p["runs"]))


def median_of(runs):
    keys = [k for k in runs[0] if all(isinstance(r.get(k), (int, float)) for r in runs)]
    return {k: statistics.median(r[k] for r in runs) for k in keys}


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def identical_fraction(a_path, b_path):
    a, b = read_lines(a_path), read_lines(b_path)
    n = max(len(a), len(b))
    same = sum(1 for x, y in zip(a, b) if x == y)
    # Both end with a newline: the empty string after the last one is not a line.
    if a and b and a[-1] == "" and b[-1] == "":
        n, same = n - 1, same - 1
    return same / n if n else 1.0, same, n
