"""The shortlist row of `make bench` (tools/bench.py): nmt with --shortlist off and on, runs alternating,
on each model the bench runs (the bundled one and the synthetic OPUS-MT-sized one); the shortlist is built
once per model by `nmt shortlist` from Multi30k train (beside the checkout) into a copy of the model folder
whose weights are hard links. Reports target tokens/s, the median of the pairwise on/off ratios, peak RSS
and the share of lines identical to the full vocabulary's."""
import gzip
import json
import os
import shutil
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN = os.path.join(ROOT, "..", "shared", "data", "multi30k", "train")


def _plain(path_gz, out):
    if not os.path.exists(out):
        with gzip.open(path_gz, "rt", encoding="utf-8") as f, open(out, "w", encoding="utf-8") as g:
            g.write(f.read())
    return out


def shortlisted_model(nmt, model_dir, work):
    """A copy of model_dir (hard links) holding a shortlist.bin built from Multi30k train, or None."""
    if not os.path.exists(TRAIN + ".en.gz"):
        return None
    out = os.path.join(work, "shortlist", os.path.basename(os.path.normpath(model_dir)))
    if not os.path.exists(os.path.join(out, "shortlist.bin")):
        os.makedirs(out, exist_ok=True)
        for name in os.listdir(model_dir):
            if name != "shortlist.bin" and not os.path.exists(os.path.join(out, name)):
                try:
                    os.link(os.path.join(model_dir, name), os.path.join(out, name))
                except OSError:  # another file system
                    shutil.copy(os.path.join(model_dir, name), os.path.join(out, name))
        src = _plain(TRAIN + ".en.gz", os.path.join(work, "train.en"))
        tgt = _plain(TRAIN + ".de.gz", os.path.join(work, "train.de"))
        subprocess.run([nmt, "shortlist", "-m", out, "--source", src, "--target", tgt], check=True)
    return out


def _run(run_measured, nmt, model, inp, out, tmp, beam, threads, batch, shortlist):
    """One run: (target tokens/s, peak RSS MB); run_measured is tools/bench_common.py's."""
    cmd = [nmt, "translate", "-m", model, "-i", inp, "-o", out, "-b", str(beam), "--batch-size", str(batch),
           "--threads", str(threads), "--stats", "--shortlist", shortlist]
    err = os.path.join(tmp, "sl.err")
    code, rss, _ = run_measured(cmd, os.path.join(tmp, "sl.stdout"), err)
    with open(err, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {' '.join(lines[-3:])}")
    stats = json.loads([line for line in lines if line.startswith("{")][-1])
    return stats["target_tokens"] / max(stats["translate_s"], 1e-9), rss


def shortlist_speed(run_measured, nmt, model_dir, work, inp, tmp, beam, threads, batch, runs, label):
    model = shortlisted_model(nmt, model_dir, work)
    if model is None:
        return None
    rates = {"off": [], "on": []}
    rss = {"off": [], "on": []}
    for rep in range(runs):
        for mode in ("off", "on"):
            rate, peak = _run(run_measured, nmt, model, inp, os.path.join(tmp, f"sl-{mode}.txt"), tmp, beam,
                              threads, batch, mode)
            rates[mode].append(rate)
            rss[mode].append(peak)
    with open(os.path.join(tmp, "sl-off.txt"), encoding="utf-8") as f:
        off = f.read().split("\n")
    with open(os.path.join(tmp, "sl-on.txt"), encoding="utf-8") as f:
        on = f.read().split("\n")
    same = sum(1 for a, b in zip(off, on) if a == b) - 1  # the empty string after the last newline
    pairs = [b / a for a, b in zip(rates["off"], rates["on"])]
    return {"model": label, "beam": beam, "threads": threads, "runs": rates,
            "median_tokens_per_s": {k: statistics.median(v) for k, v in rates.items()},
            "peak_rss_mb": {k: statistics.median(v) for k, v in rss.items()}, "ratio": statistics.median(pairs), "identical": same / max(len(off) - 1, 1)}


def shortlist_row(s):
    if s is None:
        return "shortlist: skipped (no Multi30k train beside the checkout to build one from)"
    m = s["median_tokens_per_s"]
    return (f"shortlist ({s['model']}, beam {s['beam']}, {s['threads']} threads): off {m['off']:.0f} tok/s, "
            f"on {m['on']:.0f} tok/s: {s['ratio']:.2f}x (median of alternating pairs); "
            f"peak RSS {s['peak_rss_mb']['off']:.0f} / {s['peak_rss_mb']['on']:.0f} MB; "
            f"{100 * s['identical']:.1f}% of lines identical")
