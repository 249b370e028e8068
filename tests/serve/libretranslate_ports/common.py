"""What the ports of LibreTranslate's API tests share: the three forms of a port (same, documented, known),
the registry of ports, the servers by configuration and LibreTranslate's usual requests.

The nmt binary is the runner's first argument (tests/serve/libretranslate_tests_check.py NMT).
"""
import subprocess
import sys
import tempfile

from serve_support import Server

nmt = sys.argv[1]
SRC, TGT = "en", "de"  # LibreTranslate's tests: en, es
known_differences = []
counts = {"same": 0, "documented": 0, "known": 0}
current = [""]


def describe(r):
    return f"{r.status_code} {r.text.strip()[:300]}"


def same(condition, request, r):
    """nmt answers `request` as LibreTranslate's test expects; `r` is the answer (a Response or text)."""
    if not condition:
        answer = describe(r) if hasattr(r, "status_code") else str(r)
        sys.exit(f"FAILED: {current[0]}: {request} -> {answer}")


def documented(condition, request, r):
    """nmt answers `request` as docs/serve.md documents, where that differs from LibreTranslate."""
    same(condition, request, r)


def same_status(method, path, status):
    """`METHOD PATH` answers `status`, as LibreTranslate's test expects; returns the answer."""
    r = server().get(path) if method == "GET" else server().post(path)
    same(r.status_code == status, f"{method} {path}", r)
    return r


def refused_as(r, request, message):
    """`request` is refused with 400 and an error, as LibreTranslate's; its message `message` is reported
    where nmt's differs."""
    same(r.status_code == 400 and "error" in r.json(), request, r)
    known(r.json()["error"] == message, request, r, f'400 {{"error": "{message}"}}')


def known(condition, request, r, expected):
    """LibreTranslate's expectation; nmt differs without docs/serve.md saying so: reported, not failed."""
    answer = describe(r) if hasattr(r, "status_code") else str(r)
    if condition:
        print(f"  now matches ({current[0]}): {request} -> {answer}: promote it to same()")
        return
    line = f"{current[0]}: {request} -> {answer} (LibreTranslate: {expected})"
    known_differences.append(line)
    print("KNOWN DIFFERENCE:", line)


PORTS = []


def port(ref, kind):
    """Registers a port of LibreTranslate's test `ref` (FILE::FUNCTION); kind is same, documented or known."""
    def wrap(fn):
        PORTS.append((ref, kind, fn))
        return fn
    return wrap


servers = {}
key_file = tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False)
key_file.write("# test keys\nvalid-key\nlimited-key\n")
key_file.close()
CONFIGS = {"default": [], "chars5": ["--max-chars", "5"], "chars42": ["--max-chars", "42"],
           "chars100": ["--max-chars", "100"], "items1": ["--max-items", "1"],
           "keys": ["--api-keys", key_file.name]}


def server(name="default"):
    if name not in servers:
        servers[name] = Server(nmt, *CONFIGS[name])
    return servers[name]


def translate(name="default", json_body=False, headers=None, **fields):
    """POST /translate with LibreTranslate's usual fields, as a form unless json_body."""
    body = {"q": "Hello", "source": SRC, "target": TGT, **fields}
    body = {k: v for k, v in body.items() if v is not None}
    s = server(name)
    r = s.post("/translate", json=body, headers=headers) if json_body else s.post("/translate", data=body,
                                                                                     headers=headers)
    return r, f"POST /translate {'json' if json_body else 'form'} {body}" + (f" headers {headers}" if headers else "")


def translate_file(name="default", filename="test.txt", content=b"Hello", **fields):
    data = {"source": SRC, "target": TGT, **fields}
    data = {k: v for k, v in data.items() if v is not None}
    r = server(name).post("/translate_file", data=data, files={"file": (filename, content)})
    return r, f"POST /translate_file {data} file {filename}={content!r}"


def refused_option(*option):
    """`nmt serve OPTION...` for an option nmt does not have: its exit status and first line on stderr."""
    out = subprocess.run([nmt, "serve", "--port", "0", *option], capture_output=True, text=True, timeout=30)
    return out.returncode, (out.stderr.strip().splitlines() or [""])[0]


def lacks_option(option, what):
    rc, err = refused_option(*option)
    known(False, f"nmt serve {' '.join(option)}", f"exit {rc}: {err}", what)
