#!/usr/bin/env python3
"""`nmt models install` against tests/hub/fake_hub.py: installs from the hub (safetensors, and
pytorch_model.bin when torch can write one), equal translations to `nmt convert` + `nmt translate -m`, and
every injected fault giving a one-line error or a successful retry, never a half-installed model.

Usage: install_check.py NMT_BINARY OPUS_HF_DIR [--skip-marker MARKER]
"""
import glob
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_hub  # noqa: E402

SENTENCES = "the house is small\nthe cat sleeps\n"
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def make_repos(repos, opus_hf):
    """ORG/NAME directories: test/opus-mt-en-de has model.safetensors (and weights nmt must never fetch)."""
    base = os.path.join(repos, "test", "opus-mt-en-de")
    shutil.copytree(opus_hf, base)
    for never in ("tf_model.h5", "rust_model.ot", "flax_model.msgpack"):
        with open(os.path.join(base, never), "wb") as f:
            f.write(b"not for nmt")
    for name in ("opus-mt-en-de-broken", "opus-mt-en-de-private", "opus-mt-en-de-flaky", "opus-mt-en-de-cut", "opus-mt-en-de-badsha",
                 "opus-mt-en-de-slow", "opus-mt-en-de-slow-interrupted"):
        shutil.copytree(opus_hf, os.path.join(repos, "test", name))
    files = os.path.join(repos, "_files")
    os.makedirs(files)
    marian = os.path.join(os.path.dirname(opus_hf), "marian")
    for zip_name in ("opus-2020-02-26.zip", "opus-cut.zip"):  # a Marian release, with a top folder
        with zipfile.ZipFile(os.path.join(files, zip_name), "w") as z:
            for f in sorted(os.listdir(marian)):
                z.write(os.path.join(marian, f), "opus-2020-02-26/" + f)
    return make_bin_repo(repos, opus_hf)


def make_bin_repo(repos, opus_hf):
    """test/opus-mt-en-de-bin: the same weights as pytorch_model.bin only; False without torch."""
    try:
        import torch
    except ImportError:
        return False
    with open(os.path.join(opus_hf, "model.safetensors"), "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(size))
        data = f.read()
    state = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        assert info["dtype"] == "F32", info["dtype"]
        begin, end = info["data_offsets"]
        state[key] = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(info["shape"])
    target = os.path.join(repos, "test", "opus-mt-en-de-bin")
    shutil.copytree(opus_hf, target, ignore=shutil.ignore_patterns("model.safetensors"))
    torch.save(state, os.path.join(target, "pytorch_model.bin"))
    return True


def run(nmt, args, env, stdin=""):
    return subprocess.run([nmt] + args, env=env, input=stdin.encode(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60)


def installed(home):
    return sorted(os.listdir(home)) if os.path.isdir(home) else []


def visible(home):
    return [n for n in installed(home) if not n.startswith(".")]


def fails_cleanly(nmt, env, home, args, code, words, what):
    before = visible(home)
    r = run(nmt, ["models", "install"] + args, env)
    err = r.stderr.decode()
    lines = [line for line in err.split("\n") if line]
    check(r.returncode == code, f"{what}: exit {r.returncode}, expected {code} ({err.strip()})")
    check(len(lines) == 1 and all(w in err for w in words), f"{what}: one line naming {words}: {err.strip()}")
    check(visible(home) == before, f"{what}: the installed models are unchanged")
    check(not [n for n in installed(home) if n.startswith(".installing")], f"{what}: no staging directory left")


def translations(nmt, env, model_dir):
    r = run(nmt, ["translate", "-m", model_dir], env, SENTENCES)
    return r.stdout.decode() if r.returncode == 0 else "failed: " + r.stderr.decode()


def interrupted_resumes(nmt, env, home, state):
    """Ctrl-C during a download keeps the partial file; the next install resumes it with Range."""
    repo = "test/opus-mt-en-de-slow-interrupted"
    start = len(state.log)
    proc = subprocess.Popen([nmt, "models", "install", repo], env=dict(env, NMT_HUB_STALL_SECONDS="30"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline and not any(e["server"] == "lfs" and "model.safetensors" in e["path"]
                                             for e in state.log[start:]):
        time.sleep(0.05)
    time.sleep(0.3)  # the stalled server has sent its first bytes
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=10)
    partial = glob.glob(os.path.join(home, ".downloads", "test--opus-mt-en-de-slow-interrupted", "*",
                                     "model.safetensors.partial"))
    check(code == 130 and partial and "opus-mt-en-de-slow-interrupted" not in visible(home),
          f"Ctrl-C mid-download: exit {code}, the partial file kept ({partial}), nothing installed")
    start = len(state.log)
    r = run(nmt, ["models", "install", repo], env)
    ranges = [e["range"] for e in state.log[start:] if e["server"] == "lfs" and e["range"]]
    check(r.returncode == 0 and ranges, f"the next install resumes the partial file with Range ({ranges})")


def package_installs(nmt, env, home, state, opus_hf):
    """A zip package by URL installs as nmt convert of its unpacked files, a cut download resumed."""
    lfs = f"http://127.0.0.1:{state.lfs_port}/files/"
    marian = os.path.join(os.path.dirname(opus_hf), "marian")
    reference = os.path.join(os.path.dirname(home), "reference-marian")
    langs = ["--source-lang", "en", "--target-lang", "de"]
    run(nmt, ["convert", marian, "-o", reference, "--dtype", "int8"] + langs, env)
    r = run(nmt, ["models", "install", lfs + "opus-2020-02-26.zip"] + langs, env)
    check(r.returncode == 0 and "opus-2020-02-26" in visible(home), "install a zip by URL: " + r.stderr.decode())
    got = translations(nmt, env, os.path.join(home, "opus-2020-02-26"))
    check(got == translations(nmt, env, reference) and not got.startswith("failed"),
          "the package translates as nmt convert of its files")
    start = len(state.log)
    r = run(nmt, ["models", "install", lfs + "opus-cut.zip", "--name", "cut-package"] + langs, env)
    ranges = [e["range"] for e in state.log[start:] if e["range"]]
    check(r.returncode == 0 and ranges, f"a cut package download resumes with Range ({ranges})")
    fails_cleanly(nmt, env, home, [marian], 64, ["does not state its languages", "--source-lang"],
                  "a model without languages, converted and then refused")
    fails_cleanly(nmt, env, home, [lfs + "missing.zip"], 4, ["missing.zip", "HTTP 404"], "a URL that is not there")
    check(not glob.glob(os.path.join(home, ".downloads", "url-*", "package.zip")), "installed packages are deleted")


def main():
    nmt, opus_hf = os.path.abspath(sys.argv[1]), sys.argv[2]
    marker = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--skip-marker" else "nmt-test-skipped:"
    with tempfile.TemporaryDirectory(prefix="nmt_hub.") as work:
        repos = os.path.join(work, "repos")
        have_torch = make_repos(repos, opus_hf)
        hub_port, _, state, servers = fake_hub.start(repos)
        hub = f"http://127.0.0.1:{hub_port}"
        home = os.path.join(work, "home")
        env = dict(os.environ, NMT_MODELS_DIR=home, NMT_HUB=hub, HF_HOME=os.path.join(work, "hf"),
                   NMT_HUB_STALL_SECONDS="1", NMT_HUB_RETRY_DELAY_MS="20", LC_ALL="C.UTF-8")
        env.pop("HF_TOKEN", None)
        env.pop("HF_TOKEN_PATH", None)
        env.pop("HF_HUB_OFFLINE", None)

        # The reference: nmt convert + nmt translate -m of the same files.
        reference_dir = os.path.join(work, "reference")
        r = run(nmt, ["convert", opus_hf, "-o", reference_dir, "--dtype", "int8"], env)
        check(r.returncode == 0, "nmt convert of the fixture")
        expected = translations(nmt, env, reference_dir)

        r = run(nmt, ["models", "install", "test/opus-mt-en-de"], dict(env, HF_TOKEN=fake_hub.TOKEN))
        check(r.returncode == 0, "install test/opus-mt-en-de: " + r.stderr.decode().strip())
        check(r.stdout.decode().startswith("installed opus-mt-en-de: en -> de, int8"), r.stdout.decode().strip())
        check(translations(nmt, env, os.path.join(home, "opus-mt-en-de")) == expected,
              "the installed model translates as nmt convert + translate -m")
        manifest = json.load(open(os.path.join(home, "opus-mt-en-de", "install.json")))
        check(manifest["revision"] == fake_hub.commit_of(os.path.join(repos, "test", "opus-mt-en-de")),
              "install.json records the commit")
        log = state.log
        fetched = [e["path"] for e in log if e["server"] == "lfs"]
        check(not any(w in p for p in fetched for w in ("tf_model", "rust_model", "flax")) and
              any("model.safetensors" in p for p in fetched), f"only the files a conversion needs: {fetched}")
        check(all(e["authorization"] for e in log if e["server"] == "hub") and
              not any(e["authorization"] for e in log if e["server"] == "lfs"),
              "the token goes to the hub, never to the LFS host")
        r = run(nmt, ["models", "list"], env)
        check("opus-mt-en-de wins for en-de" in r.stdout.decode(), "list: the installed model wins:\n" + r.stdout.decode())
        check(run(nmt, ["models", "verify"], env).returncode == 0, "verify passes")

        fails_cleanly(nmt, env, home, ["test/opus-mt-en-de"], 64, ["--force"], "reinstall without --force")
        r = run(nmt, ["models", "install", "test/opus-mt-en-de", "--force", "--dtype", "f32"], env)
        check(r.returncode == 0 and json.load(open(os.path.join(home, "opus-mt-en-de", "install.json")))["dtype"]
              == "f32", "--force replaces it (f32)")

        fails_cleanly(nmt, env, home, ["test/opus-mt-xx-yy"], 4,
                      ["test/opus-mt-xx-yy", "404", "nmt models install /path"], "404")
        fails_cleanly(nmt, env, home, ["test/opus-mt-en-de-private"], 4,
                      ["test/opus-mt-en-de-private", "401", "--token"], "401 without a token")
        start = len(state.log)
        r = run(nmt, ["models", "install", "test/opus-mt-en-de-private", "--token", fake_hub.TOKEN], env)
        check(r.returncode == 0, "401 with --token installs: " + r.stderr.decode().strip())
        check(not any(e["authorization"] for e in state.log[start:] if e["server"] == "lfs"),
              "--token is not sent to the LFS host")
        os.makedirs(os.path.join(work, "hf"), exist_ok=True)
        with open(os.path.join(work, "hf", "token"), "w") as f:  # as `huggingface-cli login` leaves it
            f.write(fake_hub.TOKEN + "\n")
        r = run(nmt, ["models", "install", "test/opus-mt-en-de-private", "--name", "private-2"], env)
        check(r.returncode == 0, "the token saved in $HF_HOME/token is used: " + r.stderr.decode().strip())
        os.remove(os.path.join(work, "hf", "token"))
        start = len(state.log)
        fails_cleanly(nmt, env, home, ["test/opus-mt-en-de-broken"], 4,
                      ["test/opus-mt-en-de-broken", "HTTP 500", "nmt models install /path"], "500 every time")
        tries = [e for e in state.log[start:] if "broken" in e["path"]]
        check(len(tries) == 4, f"500 is tried 4 times, then given up ({len(tries)} requests)")
        start = len(state.log)
        r = run(nmt, ["models", "install", "test/opus-mt-en-de-flaky"], env)
        statuses = [e["status"] for e in state.log[start:]]
        check(r.returncode == 0 and 500 in statuses and 503 in statuses,
              f"500 and 503 then success: {r.stderr.decode().strip()} {statuses}")
        start = len(state.log)
        r = run(nmt, ["models", "install", "test/opus-mt-en-de-cut"], env)
        ranges = [e["range"] for e in state.log[start:] if e["server"] == "lfs" and e["range"]]
        check(r.returncode == 0 and ranges, f"a cut download resumes with Range ({ranges})")
        check(translations(nmt, env, os.path.join(home, "opus-mt-en-de-cut")) == expected,
              "the resumed download translates as the reference")
        fails_cleanly(nmt, env, home, ["test/opus-mt-en-de-badsha"], 4,
                      ["test/opus-mt-en-de-badsha", "model.safetensors", "checksum", "nothing installed"],
                      "wrong sha256")
        stale = os.path.join(home, ".installing-opus-mt-en-de-slow-999999999-1")  # no such process
        os.makedirs(stale)
        r = run(nmt, ["models", "install", "test/opus-mt-en-de-slow"], env)
        check(not os.path.exists(stale), "an install removes a dead process's staging directory")
        check(r.returncode == 0, "a stalled download fails in bounded time and the retry installs: " +
              r.stderr.decode().strip())
        interrupted_resumes(nmt, env, home, state)
        dead = dict(env, NMT_HUB="http://127.0.0.1:9")
        fails_cleanly(nmt, dead, home, ["test/opus-mt-en-fr"], 4,
                      ["test/opus-mt-en-fr", "cannot download", "nmt models install /path"], "no network")
        package_installs(nmt, env, home, state, opus_hf)

        if have_torch:
            r = run(nmt, ["models", "install", "test/opus-mt-en-de-bin"], env)
            check(r.returncode == 0, "install a pytorch_model.bin repo: " + r.stderr.decode().strip())
            bin_reference = os.path.join(work, "reference-bin")
            run(nmt, ["convert", os.path.join(repos, "test", "opus-mt-en-de-bin"), "-o", bin_reference,
                      "--dtype", "int8"], env)
            got = translations(nmt, env, os.path.join(home, "opus-mt-en-de-bin"))
            check(got == translations(nmt, env, bin_reference) and got == expected,
                  "the pytorch_model.bin install translates as convert + translate -m")

        # Offline: HF_HUB_OFFLINE=1 reads the Hugging Face cache only, and downloads nothing.
        cache = os.path.join(work, "hf", "hub", "models--test--opus-mt-en-de")
        commit = manifest["revision"]
        shutil.copytree(opus_hf, os.path.join(cache, "snapshots", commit))
        os.makedirs(os.path.join(cache, "refs"))
        open(os.path.join(cache, "refs", "main"), "w").write(commit)
        start = len(state.log)
        r = run(nmt, ["models", "install", "test/opus-mt-en-de", "--name", "offline-en-de"],
                dict(env, HF_HUB_OFFLINE="1"))
        check(r.returncode == 0 and len(state.log) == start, "HF_HUB_OFFLINE=1 installs from the cache alone")

        # verify names a tampered file; remove by name.
        with open(os.path.join(home, "offline-en-de", "vocab.json"), "a") as f:
            f.write(" ")
        r = run(nmt, ["models", "verify", "offline-en-de"], env)
        check(r.returncode == 2 and "vocab.json" in r.stderr.decode(), "verify names a changed file")
        r = run(nmt, ["models", "remove", "en-de"], env)
        check(r.returncode == 64 and "several installed models translate en-de" in r.stderr.decode(),
              "remove by a pair that several models translate names them: " + r.stderr.decode().strip())
        r = run(nmt, ["models", "remove", "general-en-de"], env)
        check(r.returncode == 64 and "bundled" in r.stderr.decode(), "a bundled model cannot be removed")
        r = run(nmt, ["models", "remove", "offline-en-de"], env)
        check(r.returncode == 0 and "offline-en-de" not in visible(home), "remove by name")
        check(not [n for n in installed(home) if n.startswith(".") and n != ".downloads"], "no dot entries left")
        for server in servers:
            server.shutdown()
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    if not have_torch:
        print(marker + " the pytorch_model.bin case needs python3-torch to write its fixture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
