"""LibreTranslate's clients as they call a server: a urllib client in the style of libretranslatepy (its
form-encoded requests, and the same fields as JSON), and, with --npm, the npm `libretranslate` package
(installed into a temporary directory; reported skipped, with the reason, when npm cannot install it)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

from serve_support import SENTENCES, Server, check, cli_translate

ap = argparse.ArgumentParser()
ap.add_argument("nmt")
ap.add_argument("--npm", action="store_true", help="test the npm libretranslate package instead")
ap.add_argument("--skip-marker", default="nmt-test-skipped:")
a = ap.parse_args()


class UrllibClient:
    """What libretranslatepy does: urlencoded forms (or JSON) over urllib, answers read as JSON."""

    def __init__(self, url, as_json=False):
        self.url, self.as_json = url, as_json

    def call(self, path, fields=None):
        if fields is None:
            request = urllib.request.Request(self.url + path)
        elif self.as_json:
            request = urllib.request.Request(self.url + path, data=json.dumps(fields).encode(),
                                             headers={"Content-Type": "application/json"})
        else:
            request = urllib.request.Request(self.url + path, data=urllib.parse.urlencode(fields).encode())
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read().decode())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read().decode())

    def translate(self, q, source, target):
        return self.call("/translate", {"q": q, "source": source, "target": target})

    def detect(self, q):
        return self.call("/detect", {"q": q})

    def languages(self):
        return self.call("/languages")


expected = cli_translate(a.nmt, SENTENCES[:2])

if a.npm:
    npm = shutil.which("npm")
    if not npm or not shutil.which("node"):
        print(a.skip_marker, "npm or node is not installed: the npm libretranslate client is not tested")
        sys.exit(0)
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", tmp, "libretranslate"],
                             capture_output=True, text=True, timeout=240)
        if out.returncode != 0:
            print(a.skip_marker, "npm cannot install libretranslate here:", out.stderr.strip().splitlines()[-1:])
            sys.exit(0)
        with Server(a.nmt) as s:
            script = ("const {translate} = require('libretranslate');"
                      "translate({query: process.argv[1], source: 'en', target: 'de', apiurl: process.argv[2]})"
                      ".then((t) => console.log(JSON.stringify(t)))"
                      ".catch((e) => { console.error(e); process.exit(1); });")
            run = subprocess.run(["node", "-e", script, SENTENCES[0], s.url], capture_output=True, text=True,
                                 timeout=120, env={**os.environ, "NODE_PATH": os.path.join(tmp, "node_modules")})
            check(run.returncode == 0 and json.loads(run.stdout) == expected[0],
                  f"npm libretranslate: {run.stdout!r} {run.stderr[-300:]!r}")
            check(s.stop()[0] == 0, "exit 0")
    print("all passed")
    sys.exit(0)

with Server(a.nmt) as s:
    for as_json in (False, True):
        kind = "JSON" if as_json else "form"
        client = UrllibClient(s.url, as_json)
        status, langs = client.languages()
        check(status == 200 and {"en", "de"} <= {l["code"] for l in langs}, f"urllib {kind} languages: {langs}")
        status, answer = client.translate(SENTENCES[0], "en", "de")
        check(status == 200 and answer == {"translatedText": expected[0]}, f"urllib {kind} translate: {answer}")
        status, answer = client.translate(SENTENCES[1], "auto", "de")
        check(status == 200 and answer["translatedText"] == expected[1]
              and answer["detectedLanguage"]["language"] == "en", f"urllib {kind} translate auto: {answer}")
        status, answer = client.detect("Ein Mann mit einem orangefarbenen Hut starrt auf etwas.")
        check(status == 200 and answer[0]["language"] == "de", f"urllib {kind} detect: {answer}")
        status, answer = client.translate(SENTENCES[0], "en", "xx")
        check(status == 400 and "error" in answer, f"urllib {kind} unknown target: 400 {answer}")
    check(s.stop()[0] == 0, "exit 0")
print("all passed")
