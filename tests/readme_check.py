#!/usr/bin/env python3
"""A newcomer's path through the README: runs its checked examples and compares what they print.

A fenced block right after `<!-- readme-check -->` is a transcript: each `$ COMMAND` line runs (in bash,
in one scratch directory shared by all blocks, with `nmt` on PATH finding its bundled models as an install
does, $NMT_MODEL unset), and
the lines after it up to the next `$ ` are what it must print, stdout and stderr together. Every command
must exit 0. `<!-- readme-check: run only: REASON -->` runs the commands without comparing their output
(the reason is printed). The OPUS-MT examples get tests/fixtures/opus/hf as `opus-mt-en-de`; models install
into the scratch directory's .models ($NMT_MODELS_DIR), and the scratch directory prints as /home/you. A
fake Hugging Face hub on 127.0.0.1 (tests/hub/fake_hub.py, as $NMT_HUB) serves the same files as
Helsinki-NLP/opus-mt-en-de. An expected line may hold `…`, which stands for any text (a download's time).

Usage: readme_check.py NMT_BINARY README OPUS_HF_DIR
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FAKE_HUB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hub", "fake_hub.py")

MARKER = re.compile(r"^<!-- readme-check(?:: run only: (?P<reason>.*?))? -->$")


def checked_blocks(readme_lines):
    """(line number of its first line, reason or None, transcript lines) of each marked block."""
    blocks = []
    i = 0
    while i < len(readme_lines):
        match = MARKER.match(readme_lines[i])
        if not match:
            i += 1
            continue
        start = i + 1
        if start >= len(readme_lines) or not readme_lines[start].startswith("```"):
            sys.exit(f"README:{i + 1}: a readme-check marker must be followed by a fenced block")
        end = start + 1
        while end < len(readme_lines) and readme_lines[end] != "```":
            end += 1
        if end == len(readme_lines):
            sys.exit(f"README:{start + 1}: the checked block is not closed")
        blocks.append((start + 2, match.group("reason"), readme_lines[start + 1:end]))
        i = end + 1
    return blocks


def transcript_steps(first_line_no, lines):
    """(README line number, command, expected output lines) of each step of a transcript."""
    steps = []
    for offset, line in enumerate(lines):
        if line.startswith("$ "):
            steps.append((first_line_no + offset, line[2:], []))
        elif not steps:
            sys.exit(f"a checked block must start with '$ ': {line!r}")
        else:
            steps[-1][2].append(line)
    return steps


def start_fake_hub(work, opus_hf):
    """The fake hub serving opus_hf as Helsinki-NLP/opus-mt-en-de: (process, its URL)."""
    shutil.copytree(opus_hf, os.path.join(work, ".hub", "Helsinki-NLP", "opus-mt-en-de"))
    port_file = os.path.join(work, ".hub-port")
    hub = subprocess.Popen([sys.executable, FAKE_HUB, os.path.join(work, ".hub"), "--port-file", port_file,
                            "--lifetime", "300"], stdout=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
            with open(port_file, encoding="utf-8") as f:
                return hub, f"http://127.0.0.1:{json.load(f)['hub']}"
        time.sleep(0.05)
    hub.kill()
    sys.exit("the fake hub did not start")


def matches(expected, printed):
    """Whether the printed lines are the expected ones, each `…` in an expected line standing for any text."""
    if len(expected) != len(printed):
        return False
    return all(re.fullmatch(".*".join(re.escape(part) for part in want.split("\u2026")), got)
               for want, got in zip(expected, printed))


def main():
    nmt, readme, opus_hf = sys.argv[1:4]
    with open(readme, encoding="utf-8") as f:
        blocks = checked_blocks(f.read().split("\n"))
    if not blocks:
        sys.exit("no <!-- readme-check --> block found in " + readme)
    failures = 0
    compared = 0
    with tempfile.TemporaryDirectory(prefix="nmt_readme.") as work:
        bin_dir = os.path.join(work, ".bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(nmt), os.path.join(bin_dir, "nmt"))
        shutil.copytree(opus_hf, os.path.join(work, "opus-mt-en-de"))
        hub, hub_url = start_fake_hub(work, opus_hf)
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], LC_ALL="C.UTF-8",
                   NMT_MODELS_DIR=os.path.join(work, ".models"), NMT_HUB=hub_url)
        for variable in ("NMT_MODEL", "HF_TOKEN", "HF_HUB_OFFLINE", "HF_ENDPOINT", "XDG_DATA_HOME"):
            env.pop(variable, None)
        for line_no, reason, lines in blocks:
            if reason is not None:
                print(f"README:{line_no}: output not compared: {reason}")
            for step_line, command, expected in transcript_steps(line_no, lines):
                run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, timeout=120)
                # The scratch directory is printed as /home/you (`nmt models list` shows paths).
                printed = run.stdout.decode("utf-8", "replace").replace(work, "/home/you").split("\n")
                if printed[-1] == "":
                    printed.pop()
                if run.returncode != 0:
                    failures += 1
                    print(f"README:{step_line}: `{command}` exited {run.returncode}:\n" + "\n".join(printed))
                elif reason is None and not matches(expected, printed):
                    failures += 1
                    diff = difflib.unified_diff(expected, printed, "README", "nmt printed", lineterm="")
                    print(f"README:{step_line}: `{command}` printed something else:\n" + "\n".join(diff))
                elif reason is None:
                    compared += 1
        hub.kill()
        hub.wait()
    print(f"{compared} command(s) print what the README shows, {failures} failed")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
