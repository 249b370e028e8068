"""What the bench tools share (tools/bench.py, tools/bench_ct2.py, tools/bench_latency.py): paths and
defaults, running a command with its peak RSS, the input's lines, and the two derived models (nmt's int8
re-quantization and the synthetic OPUS-MT-sized model), each made once into build-bench/."""
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
PYTHON = "/usr/bin/python3"   # Debian's, with torch
TIME = "/usr/bin/time"         # GNU time (package `time`), for the peak RSS
DEFAULT_INPUT = os.path.join(ROOT, "..", "shared", "data", "multi30k", "test_2016_flickr.en.gz")
DEFAULT_MODEL = os.path.join(ROOT, "data", "multi30k-en-de")
WORK = os.path.join(ROOT, "build-bench")

# The synthetic OPUS-MT-sized model (bump SYNTH_VERSION when its recipe changes: the cache is keyed on it).
SYNTH_VERSION = 1
SYNTH_VOCAB = 58101
SYNTH_STEPS = 32
SYNTH_CONFIG = {
    "d_model": 512, "n_heads": 8, "encoder_layers": 6, "decoder_layers": 6, "ffn_dim": 2048,
    "activation": "swish", "norm": "post", "final_norm": False, "layer_norm_eps": 1e-5,
    "positions": "sinusoidal-concat", "max_positions": 512, "scale_embedding": True,
    "shared_embeddings": True, "tied_output": True, "output_bias": True,
    "src_vocab_size": SYNTH_VOCAB, "tgt_vocab_size": SYNTH_VOCAB,
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_measured(cmd, stdout_path, stderr_path, env=None):
    """Run cmd to completion; returns (exit code, peak RSS MB of cmd, wall seconds).

    The peak RSS comes from GNU time (-f %M), not from our own os.wait4: Linux carries the pre-exec
    address space's high-water mark into the child's ru_maxrss (exec_mmap -> setmax_mm_hiwater_rss), and
    a child forked from this process starts with this process's pages, so wait4 would report at least our
    own peak (hundreds of MB after generating the synthetic model). /usr/bin/time is ~1 MB: its child's
    ru_maxrss is the command's own peak.
    """
    rss_path = stdout_path + ".rss"
    t0 = time.perf_counter()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        p = subprocess.Popen([TIME, "-f", "%M", "-o", rss_path] + cmd, stdout=out, stderr=err, env=env)
        _, status, _ = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    with open(rss_path) as f:
        rss_kb = int(f.read().split()[-1])     # "Command exited with non-zero status N" may come first
    return p.returncode, rss_kb / 1024.0, wall


def read_input(path, n=0):
    """The input's lines (gzipped or not), the first n of them when n is set."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    return lines[:n] if n else lines


def int8_model(nmt, model_dir):
    """The model re-quantized to int8 by nmt convert, once per source model (keyed on its model.json)."""
    with open(os.path.join(model_dir, "model.json"), "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()[:12]
    out = os.path.join(WORK, "int8", f"{os.path.basename(os.path.normpath(model_dir))}-{key}")
    if not os.path.exists(os.path.join(out, "model.json")):
        log(f"converting {model_dir} to int8 into {out} (once) ...")
        subprocess.run([nmt, "convert", "--from", "nmt", model_dir, "-o", out, "--dtype", "int8", "--force"],
                       check=True, capture_output=True)
    return out


def synthetic_model(spm_path, out_dir):
    """Generate (or reuse) the synthetic model in out_dir; returns out_dir."""
    with open(spm_path, "rb") as f:
        key = hashlib.sha256(f.read() + json.dumps([SYNTH_VERSION, SYNTH_CONFIG]).encode()).hexdigest()
    key_file = out_dir + ".key"
    if os.path.exists(os.path.join(out_dir, "model.json")) and os.path.exists(key_file):
        with open(key_file) as f:
            if f.read().strip() == key:
                return out_dir
    log(f"generating the synthetic OPUS-MT-sized model into {out_dir} (once) ...")
    import numpy as np
    import sentencepiece as spm
    sys.path.insert(0, TOOLS)
    from checkpoint import expected_tensors, write_checkpoint

    # OPUS-MT ids: </s> 0, <unk> 1, <pad> = decoder start = V-1; the spm's pieces next, then fillers
    # (never produced by the spm, but the random model generates them) so the vocabulary has V entries.
    sp = spm.SentencePieceProcessor(model_file=spm_path)
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        if not (sp.is_control(i) or sp.is_unknown(i)) and piece not in vocab:
            vocab[piece] = len(vocab)
    k = 0
    while len(vocab) < SYNTH_VOCAB - 1:
        filler = f"\u2581x{k}"
        k += 1
        if filler not in vocab:
            vocab[filler] = len(vocab)
    vocab["<pad>"] = SYNTH_VOCAB - 1
    pad, eos = SYNTH_VOCAB - 1, 0

    rng = np.random.default_rng(20261122)
    d = SYNTH_CONFIG["d_model"]
    tensors = {}
    for name, shape in expected_tensors(SYNTH_CONFIG).items():
        if name.endswith("norm.weight"):
            t = np.ones(shape, np.float32)
        elif name.endswith("norm.bias"):
            t = np.zeros(shape, np.float32)
        elif name == "output.bias":
            t = (rng.standard_normal(shape, dtype=np.float32) * 0.1)
            t[eos] = -1e4          # EOS never wins: every sentence runs to its forced EOS
        elif name == "encoder.embed_tokens":
            t = rng.standard_normal(shape, dtype=np.float32) * d ** -0.5   # unit variance after * sqrt(d)
            t[pad] = 0.0
        elif name.endswith(".bias"):
            t = rng.standard_normal(shape, dtype=np.float32) * 0.02
        else:                      # Linear [out, in]
            t = rng.standard_normal(shape, dtype=np.float32) * shape[1] ** -0.5
        tensors[name] = t

    tmp_dir = out_dir + ".tmp"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    os.makedirs(tmp_dir)
    shutil.copyfile(spm_path, os.path.join(tmp_dir, "spm.model"))
    with open(os.path.join(tmp_dir, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    write_checkpoint(
        tmp_dir, SYNTH_CONFIG, {"pad": pad, "unk": 1, "eos": eos, "decoder_start": pad},
        {"beam_size": 4, "length_penalty": 1.0, "max_length_a": 0.0, "max_length_b": SYNTH_STEPS,
         "max_length": 512, "ban_unk": False, "renormalize": False},
        {"source_spm": "spm.model", "target_spm": "spm.model", "source_vocab": "vocab.json",
         "target_vocab": "vocab.json", "add_eos": True},
        tensors, dtype="f32")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.rename(tmp_dir, out_dir)
    with open(key_file, "w") as f:
        f.write(key + "\n")
    return out_dir
