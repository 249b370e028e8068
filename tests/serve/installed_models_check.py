"""`nmt serve` without -m: every installed model (NMT_MODELS_DIR, three relabelled fixtures), the bundled
general-de-en, and the pairs they reach through English. /languages lists each reachable pair, each request
goes to its model (or both legs) and answers as `nmt translate -m DIR` or `nmt translate --from --to` does, 32
concurrent clients mixing pairs get the CLI's answers; models load on first use and the least recently used is
unloaded over --max-models-memory; a model that cannot load answers 500 naming it and leaves the others
serving."""
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile

import requests

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "route"))
from route_support import GENERAL, MULTI30K, OPUS, environment, install  # noqa: E402
from serve_support import SENTENCES, check, cli_translate  # noqa: E402

nmt = sys.argv[1]
FRENCH = "Un homme avec un chapeau orange regarde quelque chose dans la rue."


def start(env, *args):
    """`nmt serve --port 0` in `env`: the process, its URL and the warnings it printed before listening."""
    # A request may wait long under a sanitizer: the answers are checked here, not the latency.
    proc = subprocess.Popen([nmt, "serve", "--port", "0", "--threads", "2", "--request-timeout", "240", *args],
                            stderr=subprocess.PIPE,
                            text=True, env=env)
    warnings = []
    while True:
        line = proc.stderr.readline()
        match = re.search(r"http://([0-9.]+):(\d+)/", line)
        if match:
            return proc, f"http://{match.group(1)}:{match.group(2)}", warnings, line
        if not line:
            sys.exit(f"nmt serve did not start: {warnings}")
        warnings.append(line)


with tempfile.TemporaryDirectory() as home:
    dirs = {("fr", "en"): install(home, "opus-mt-fr-en", OPUS, "fr", "en"),
            ("en", "de"): install(home, "opus-mt-en-de", MULTI30K, "en", "de"),
            ("en", "es"): install(home, "opus-mt-en-es", GENERAL, "en", "es")}
    env = environment(home)
    os.environ.clear()
    os.environ.update(env)  # cli_translate's commands see the same models

    proc, url, warnings, banner = start(env)
    try:
        check(not warnings and "pairs: de-en de-es en-de en-es fr-de fr-en fr-es" in banner, f"the pairs served: {banner!r}")
        langs = requests.get(url + "/languages", timeout=60).json()
        check(langs == [{"code": "de", "name": "German", "targets": ["en", "es"]},
                        {"code": "en", "name": "English", "targets": ["de", "es"]},
                        {"code": "fr", "name": "French", "targets": ["de", "en", "es"]},
                        {"code": "es", "name": "Spanish", "targets": []}],
              f"/languages: direct pairs and those through en: {langs}")

        texts = SENTENCES[:4] + [FRENCH]
        expected = {}
        for pair, directory in dirs.items():
            expected[pair] = cli_translate(nmt, texts, "-m", directory)
        for pair in (("fr", "de"), ("fr", "es")):
            expected[pair] = cli_translate(nmt, texts, "--from", pair[0], "--to", pair[1])
        check(len({tuple(v) for v in expected.values()}) == len(expected) and
              all(len(v) == len(texts) for v in expected.values()), "the five pairs answer differently")

        def ask(pair, i):
            r = requests.post(url + "/translate", json={"q": texts[i], "source": pair[0], "target": pair[1]},
                              timeout=120)
            return r.status_code, r.json().get("translatedText")

        for pair in expected:
            got = [ask(pair, i) for i in range(len(texts))]
            check(got == [(200, e) for e in expected[pair]], f"{pair[0]}-{pair[1]} answers as the CLI: {got}")
        r = requests.post(url + "/translate", json={"q": FRENCH, "source": "fra", "target": "de-DE"}, timeout=60)
        check(r.json().get("translatedText") == expected[("fr", "de")][4], f"codes fra, de-DE: {r.text}")
        r = requests.post(url + "/translate", json={"q": FRENCH, "source": "auto", "target": "de"}, timeout=60)
        check(r.json().get("translatedText") == expected[("fr", "de")][4] and
              r.json()["detectedLanguage"]["language"] == "fr", f"source auto, French, through en: {r.text}")
        r = requests.post(url + "/translate", json={"q": FRENCH, "source": "de", "target": "fr"}, timeout=60)
        check(r.status_code == 400, f"a pair not served: 400: {r.status_code} {r.text}")

        rng = random.Random(48)
        jobs = [(rng.choice(sorted(expected)), rng.randrange(len(texts))) for _ in range(96)]
        with concurrent.futures.ThreadPoolExecutor(32) as pool:
            answers = list(pool.map(lambda job: ask(*job), jobs))
        wrong = [(job, a) for job, a in zip(jobs, answers) if a != (200, expected[job[0]][job[1]])]
        check(not wrong, f"32 concurrent clients, 96 requests mixing five pairs: the CLI's answers: {wrong[:3]}")
    finally:
        proc.terminate()
        proc.communicate(timeout=60)

    # Models load on first use; over a 20 MB budget (multi30k 15 MB, general 8 MB, opus 0.2 MB) the least
    # recently used model no request holds is unloaded (en-de, not fr-en used since), and loads again when
    # asked (fr-de: en-de again, unloading en-es; fr-en is in use).
    proc, url, warnings, banner = start(env, "--max-models-memory", "20M")
    try:
        for pair, i in ((("fr", "en"), 0), (("en", "de"), 1), (("fr", "en"), 2), (("en", "es"), 3), (("fr", "de"), 4)):
            got = ask(pair, i)
            check(got == (200, expected[pair][i]), f"{pair[0]}-{pair[1]} under a 20 MB budget: {got}")
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    events = [re.sub(r"^nmt serve: (\w+) .*/([^/ ]+) \(.*", r"\1 \2", line) for line in err.splitlines()
              if re.match(r"nmt serve: (loaded|unloaded) ", line)]
    check(events == ["loaded opus-mt-fr-en", "loaded opus-mt-en-de", "loaded opus-mt-en-es", "unloaded opus-mt-en-de",
                     "loaded opus-mt-en-de", "unloaded opus-mt-en-es"],
          f"loaded on first use, least recently used unloaded: {events}")

    # A model whose weights are gone: its pairs answer 500 naming it, the others serve.
    os.remove(os.path.join(dirs[("fr", "en")], "weights.bin"))
    proc, url, warnings, banner = start(env)
    try:
        for pair in (("fr", "en"), ("fr", "de")):
            r = requests.post(url + "/translate", json={"q": FRENCH, "source": pair[0], "target": pair[1]},
                              timeout=60)
            check(r.status_code == 500 and "cannot load fr-en (opus-mt-fr-en)" in r.json()["error"] and
                  "weights.bin" in r.json()["error"], f"{pair[0]}-{pair[1]} without its weights: {r.status_code} {r.text}")
        r = requests.post(url + "/translate", json={"q": SENTENCES[0], "source": "en", "target": "de"}, timeout=60)
        check(r.json().get("translatedText") == expected[("en", "de")][0], f"the others still answer: {r.text}")
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
print("all passed")
