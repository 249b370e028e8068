"""What `make bench` (tools/bench.py) reports: the machine, the commit, the models, the sgemm ceiling and
the markdown table, and bench/latest/MACHINE.md.
"""
import ctypes
import json
import os
import re
import subprocess

from bench_common import PYTHON, ROOT, log


# ----------------------------------------------------------------------------------------------
# Machine, model, peak

def machine_key(machine):
    """A file name per machine kind: the CPU's name and the OpenBLAS core type it runs."""
    core = (machine.get("openblas") or "").split(" MAX_THREADS")[0].split(" ")[-1]
    return re.sub(r"[^a-z0-9]+", "-", f"{machine['cpu']} {core}".lower()).strip("-")


def write_latest(result, directory=os.path.join(ROOT, "bench", "latest")):
    """bench/latest/MACHINE.md: the newest full run's table on this machine kind, replaced by the next."""
    m = result["machine"]
    path = os.path.join(directory, machine_key(m) + ".md")
    os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# make bench on {m['cpu']}, {m['nproc']} cores ({m.get('openblas') or 'no OpenBLAS'})\n\n")
        f.write(f"{result['date']}, commit {result['git']['commit'][:12]}, {result['duration_s']:.0f} s, "
                f"load average {m['loadavg_start']:.2f} at start, {m['loadavg_end']:.2f} at end.\n\n")
        f.write(result["table"].rstrip("\n") + "\n")
    return path


def machine_info():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info = {"nproc": len(os.sched_getaffinity(0)), "cpu": cpu, "loadavg_start": os.getloadavg()[0]}
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_config.restype = ctypes.c_char_p
        info["openblas"] = lib.openblas_get_config().decode()
    except (OSError, AttributeError):
        info["openblas"] = None
    try:
        info["torch"] = subprocess.run([PYTHON, "-c", "import torch; print(torch.__version__)"], check=True,
                                       capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        info["torch"] = None
    return info


def git_info():
    def git(*a):
        return subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True).stdout.strip()
    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def folder_mb(model_dir):
    """The model folder's size (every file in it: weights, config, tokenizer), MB."""
    return sum(os.path.getsize(os.path.join(model_dir, f)) for f in os.listdir(model_dir)
               if os.path.isfile(os.path.join(model_dir, f))) / 2 ** 20


def model_info(model_dir):
    with open(os.path.join(model_dir, "model.json"), encoding="utf-8") as f:
        meta = json.load(f)
    c = meta["config"]
    params = 0
    for t in meta["tensors"]:
        n = 1
        for s in t["shape"]:
            n *= s
        params += n
    return {"dir": os.path.relpath(os.path.abspath(model_dir), ROOT), "params": params,
            "shape": f"{c['encoder_layers']}+{c['decoder_layers']} layers, d {c['d_model']}, {c['n_heads']} heads, "
                     f"FFN {c['ffn_dim']}, vocab {c['src_vocab_size']}/{c['tgt_vocab_size']}",
            "decoding": meta["decoding"], "folder_mb": round(folder_mb(model_dir), 1)}


def sgemm_peak(path, quick):
    if not os.path.exists(path):
        log(f"warning: {path} not found (build the sgemm_peak target): no GEMM ceiling")
        return None
    out = subprocess.run([path, "2048", "3" if quick else "5"], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------------
# The table

def fmt(x, digits):
    return "–" if x is None else f"{x:,.{digits}f}"


def make_table(rows, peak, baselines, i8peak=None):
    peak1 = peak["gflops"]["1"]["best"] if peak else None
    vnni = (i8peak or {}).get("int8_peak_gops_per_thread", {})
    i8top = max(vnni.values()) if vnni else None
    fma = peak.get("fma_peak_gflops_per_thread") if peak else None
    runs = sorted({len(r["runs"]) for r in rows})
    runs_text = (f"{runs[0]} run{'s' if runs[0] > 1 else ''}" if len(runs) == 1 else "the runs in column 'runs'")
    head = [f"Every number is the median of {runs_text} (each run a separate process); batch 32; tokens/s = target "
            "SentencePiece pieces (EOS excluded) / translate time (model load excluded); peak RSS of the process."]
    if peak:
        head.append("sgemm ceiling (core::gemm, 2048³, best of 5): " +
                    ", ".join(f"{t} thread{'s' if t != '1' else ''} {v['best']:.1f} GFLOP/s"
                              for t, v in peak["gflops"].items()) +
                    "; GEMM GFLOP/s below is per thread (gemm_s is summed over workers), vs the 1-thread ceiling" +
                    (f" and vs the core's fp32 FMA peak ({fma:.1f} GFLOP/s: a register-only loop of fused "
                     "multiply-adds, widest vectors)" if fma else "") + ".")
    if i8peak:
        head.append(f"nmt int8 = the same model re-quantized (nmt convert --dtype int8), kernel {i8peak['kernel']}; "
                    f"its GEMM GOP/s is against the core's int8 peak ({i8top:.0f} GOP/s per thread: a register-only "
                    "loop of the kernel's instructions), int8/f32 = its tokens/s over nmt f32's (its peak RSS and model "
                    "folder size as a share of f32's), same output = "
                    "lines identical to nmt f32's.")
    described = {"PyTorch": "the Hugging Face generate-style baseline (input-order batches, every row computed "
                            "until its batch is done)",
                 "PyTorch sorted": "the same model with nmt's batching (sorted by length, finished sentences "
                                   "dropped)"}
    head.append("; ".join(f"{b} = {described[b]}" for b in baselines) + ".")
    cols = (["model", "engine", "search", "threads", "runs", "tokens/s", "sentences/s", "load (s)", "peak RSS (MB)"] +
            [f"nmt/{b}" for b in baselines] + ["int8/f32", "same output as " + " / ".join(baselines),
                                               "GEMM GFLOP/s/thread (% of sgemm ceiling / of FMA peak)", "GEMM share"])
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(["---"] * len(cols)) + "|"]
    for r in rows:
        m = r["median"]
        gemm = share = "–"
        ratios = ["–"] * len(baselines)
        same = "–"
        vs_f32 = "–"
        if r["engine"] == "nmt int8":
            vs_f32 = f"{r['ratios']['nmt']:.2f}×"
            if "peak_rss" in r["ratios"]:
                vs_f32 += f" (peak RSS {100 * r['ratios']['peak_rss']:.0f}%, model {100 * r['ratios']['folder']:.0f}%)"
            same = f"{100 * r['identical']['nmt']:.1f}% (of nmt f32)"
            if m.get("gemm_s"):
                rate = m["gemm_gflop"] / m["gemm_s"]
                gemm = f"{rate:.1f} GOP/s" + (f" ({100 * rate / i8top:.0f}% of int8 peak)" if i8top else "")
                share = f"{100 * m['gemm_s'] / (m['translate_s'] * r['threads']):.0f}%"
        if r["engine"] == "nmt":
            ratios = [f"{r['ratios'][b]:.2f}×" if b in r["ratios"] else "–" for b in baselines]
            same = " / ".join(f"{100 * r['identical'][b]:.1f}%" if b in r["identical"] else "–" for b in baselines)
            if m.get("gemm_s"):
                rate = m["gemm_gflop"] / m["gemm_s"]
                shares = ([f"{100 * rate / peak1:.0f}%"] if peak1 else []) + \
                    ([f"{100 * rate / fma:.0f}% of FMA peak"] if fma else [])
                gemm = f"{rate:.1f}" + (f" ({' / '.join(shares)})" if shares else "")
                share = f"{100 * m['gemm_s'] / (m['translate_s'] * r['threads']):.0f}%"
        lines.append("| " + " | ".join([
            r["model"], r["engine"], "greedy" if r["beam"] == 1 else f"beam {r['beam']}", str(r["threads"]),
            str(len(r["runs"])),
            fmt(m["tokens_per_s"], 0), fmt(m["sentences_per_s"], 1), fmt(m["load_s"], 3),
            fmt(m["peak_rss_mb"], 0)] + ratios + [vs_f32, same, gemm, share]) + " |")
    return "\n".join(head) + "\n\n" + "\n".join(lines)


# ----------------------------------------------------------------------------------------------
