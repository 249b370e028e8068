"""Starts `nmt serve` on a free loopback port for a test, and runs `nmt translate` to compare with."""
import os
import re
import signal
import subprocess
import sys
import time

import requests

SENTENCES = [
    "A dog runs in the park.",
    "Two men are talking on the street.",
    "A woman in a red dress is dancing.",
    "Children play soccer on a field.",
    "A man rides a bike down the hill.",
    "A little girl is eating an ice cream.",
    "Three people sit on a bench.",
    "A black cat sleeps on the sofa.",
    "The boy jumps into the water.",
    "An old man reads a newspaper.",
    "A group of people are standing outside a building.",
    "Two dogs are playing with a ball in the snow.",
]


class Server:
    """`nmt serve --port 0 ARGS...`; the port is read from its first line on stderr."""

    def __init__(self, nmt, *args):
        self.proc = subprocess.Popen([nmt, "serve", "--port", "0", "--threads", "2", *args],
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        match = re.search(r"http://([0-9.]+):(\d+)/", line)
        if not match:
            self.proc.kill()
            sys.exit(f"nmt serve did not start: {line!r}")
        self.host, self.port = match.group(1), int(match.group(2))
        self.url = f"http://{self.host}:{self.port}"

    def post(self, path, **kwargs):
        return requests.post(self.url + path, timeout=60, **kwargs)

    def get(self, path, **kwargs):
        return requests.get(self.url + path, timeout=60, **kwargs)

    def stop(self):
        """SIGTERM; returns the exit status and what it wrote on stderr."""
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, err

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def cli_translate(nmt, lines, *args, stdin=None):
    """`nmt translate -q ARGS` of `lines` (or raw `stdin`): its stdout lines."""
    text = stdin if stdin is not None else "".join(line + "\n" for line in lines)
    out = subprocess.run([nmt, "translate", "-q", "--threads", "2", *args], input=text, capture_output=True,
                         text=True)
    return out.stdout.splitlines()


def sanitized(nmt):
    """Whether nmt is an AddressSanitizer build, whose shadow memory and quarantine make RSS figures its own."""
    out = subprocess.run(["ldd", nmt], capture_output=True, text=True).stdout
    return "libasan" in out


def check(condition, message):
    if not condition:
        sys.exit("FAILED: " + message)
    print("ok:", message.split(":")[0] if ":" in message else message)
