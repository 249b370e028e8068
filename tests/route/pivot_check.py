"""`nmt translate --from/--to`: the installed model for a pair (over the bundled one), -m over both, codes
in any spelling (fr, fra, fr-FR), a pair with no model refused with the pairs there are and the install
command, and through a pivot exactly `nmt translate -m FR_EN | nmt translate -m EN_DE`, line by line;
`--to` alone routes each line by its detected language; a bundled German->English model beside the default
one answers --from de --to en, and both answer in `nmt serve`'s /languages.

Usage: pivot_check.py NMT_BINARY"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from route_support import GENERAL, MULTI30K, OPUS, environment, install  # noqa: E402

nmt = sys.argv[1]
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


LINES = ["A man in an orange hat is looking at something.", "",
         "Two dogs run across the snow. A child watches them.", "  Leading and trailing spaces.  ",
         "A WOMAN IS SINGING ON A STAGE.", "Trois chiens jouent dans l'herbe."]
TEXT = "\n".join(LINES) + "\n"

with tempfile.TemporaryDirectory() as home:
    env = environment(home)

    def run(*args, text=TEXT):
        return subprocess.run([nmt, "translate", "-q", *args], input=text, capture_output=True, text=True,
                              env=env, timeout=120)

    fr_en = install(home, "opus-mt-fr-en", OPUS, "fr", "en")
    en_de = install(home, "opus-mt-en-de", MULTI30K, "en", "de")

    leg1 = run("-m", fr_en)
    leg2 = run("-m", en_de, text=leg1.stdout)
    check(leg1.returncode == 0 and leg2.returncode == 0 and len(leg2.stdout.split("\n")) == len(LINES) + 1,
          f"the two legs by hand: {leg1.stderr}{leg2.stderr}")
    for args in (["--from", "fr", "--to", "de"], ["-s", "fra", "-t", "deu"], ["--from", "fr-FR", "--to", "DE"]):
        pivot = run(*args)
        check(pivot.returncode == 0 and pivot.stdout == leg2.stdout,
              f"{' '.join(args)} through en equals the two legs piped, line by line "
              f"({pivot.returncode} {pivot.stderr!r})")
    told = subprocess.run([nmt, "translate", "--from", "fr", "--to", "de"], input="Un chien.\n",
                          capture_output=True, text=True, env=env, timeout=120)
    check("through fr-en (opus-mt-fr-en) then en-de (opus-mt-en-de)" in told.stderr,
          f"the route is told on stderr: {told.stderr!r}")

    direct = run("--from", "en", "--to", "de")
    by_hand = run("-m", en_de)
    check(direct.returncode == 0 and direct.stdout == by_hand.stdout,
          "en-de: the installed model, not the bundled one")
    wins = run("-m", fr_en, "--from", "en", "--to", "de")
    check(wins.returncode == 0 and wins.stdout == leg1.stdout, "-m wins over --from/--to")
    told = subprocess.run([nmt, "translate", "-m", fr_en, "--from", "en", "--to", "de"], input="A dog.\n",
                          capture_output=True, text=True, env=dict(env, NMT_MODEL=en_de), timeout=120)
    check("-m " + fr_en + " (or $NMT_MODEL) chooses the model: --from/--to do not" in told.stderr,
          f"and says so: {told.stderr!r}")

    refused = run("--from", "fr", "--to", "de", "--no-pivot")
    check(refused.returncode == 64 and "no model translates fr to de;" in refused.stderr and
          "nmt models install Helsinki-NLP/opus-mt-fr-de" in refused.stderr and "en-de" in refused.stderr,
          f"--no-pivot refuses with the pairs and the install command: {refused.stderr!r}")
    missing = run("--from", "es", "--to", "de")
    check(missing.returncode == 64 and "no model translates es to de (directly or through en)" in missing.stderr
          and "available pairs: de-en, en-de, fr-de, fr-en" in missing.stderr
          and "nmt models install Helsinki-NLP/opus-mt-es-de" in missing.stderr,
          f"an unreachable pair names the pairs there are: {missing.stderr!r}")
    half = run("--from", "fr")
    check(half.returncode == 64 and "--from needs --to" in half.stderr, f"--from alone: {half.stderr!r}")

    # --to alone: each line to the model of its language as CLD2 tells it; German copied, Spanish (no
    # model) copied with a warning naming the install command.
    mixed = ["A man in an orange hat is looking at something on the street.",
             "Un homme avec un chapeau orange regarde quelque chose dans la rue.",
             "Ein Mann mit einem orangefarbenen Hut schaut auf etwas auf der Straße.", "",
             "Dos perros juegan en la nieve con una pelota roja grande."]
    routed = subprocess.run([nmt, "translate", "--to", "de"], input="\n".join(mixed) + "\n", capture_output=True,
                            text=True, env=env, timeout=120)
    english = run("-m", en_de, text=mixed[0] + "\n").stdout
    french = run("--from", "fr", "--to", "de", text=mixed[1] + "\n").stdout
    check(routed.returncode == 0 and routed.stdout == english + french + "\n".join(mixed[2:]) + "\n",
          f"--to alone routes each line by its language: {routed.stdout!r}")
    check("stdin:5: no model translates es to de: copied as it is (nmt models install Helsinki-NLP/opus-mt-es-de)"
          in routed.stderr, f"an unrouted line is reported: {routed.stderr!r}")
    flagged = run("--to", "de", "--output-format", "jsonl", text=mixed[4] + "\n")
    check('"unrouted"' in flagged.stdout, f"and flagged in JSON lines: {flagged.stdout!r}")

    # Scores, alignments and n-best through the pivot: the second leg's hypotheses, source words aligned.
    nbest = run("--from", "fr", "--to", "de", "--n-best", "2", "--alignment", text=LINES[0] + "\n")
    rows = nbest.stdout.splitlines()
    check(nbest.returncode == 0 and len(rows) == 2 and all(r.startswith("0 ||| ") for r in rows),
          f"--n-best 2 --alignment through the pivot: {nbest.stdout!r} {nbest.stderr!r}")
    source_words = len(LINES[0].split())
    links = [p for p in rows[0].split(" ||| ")[2].split()] if rows else []
    check(links and all(0 <= int(p.split("-")[0]) < source_words for p in links),
          f"composed alignments point at source words: {links}")

# The bundled models as an install lays them out (PREFIX/bin/nmt, PREFIX/share/nmt/NAME): general-de-en (here
# the tiny fixture relabelled de -> en) answers --from de --to en, the default general-en-de --from en --to de.
with tempfile.TemporaryDirectory() as prefix:
    os.makedirs(os.path.join(prefix, "bin"))
    installed = os.path.join(prefix, "bin", "nmt")
    shutil.copy2(nmt, installed)
    share = os.path.join(prefix, "share", "nmt")
    os.makedirs(share)
    os.symlink(os.path.abspath(GENERAL), os.path.join(share, "general-en-de"))
    de_en = install(share, "general-de-en", OPUS, "de", "en")
    home = os.path.join(prefix, "empty-home")
    os.makedirs(home)
    env = environment(home)
    german = "Ein Hund rennt.\nZwei Kinder spielen.\n"

    def translate(binary, *args, text=german):
        return subprocess.run([binary, "translate", "-q", *args], input=text, capture_output=True, text=True,
                              env=env, timeout=120)

    routed, by_hand = translate(installed, "--from", "de", "--to", "en"), translate(nmt, "-m", de_en)
    check(routed.returncode == 0 and routed.stdout == by_hand.stdout and routed.stdout.count("\n") == 2,
          f"the bundled general-de-en answers --from de --to en: {routed.stdout!r} {routed.stderr!r}")
    english = "A dog runs.\n"
    forward, default = translate(installed, "--from", "en", "--to", "de", text=english), \
        translate(nmt, "-m", GENERAL, text=english)
    check(forward.returncode == 0 and forward.stdout == default.stdout,
          f"and the default general-en-de --from en --to de: {forward.stdout!r} {forward.stderr!r}")
    listed = subprocess.run([installed, "models", "list"], capture_output=True, text=True, env=env, timeout=60)
    check(listed.returncode == 0 and "general-de-en" in listed.stdout and "general-en-de" in listed.stdout,
          f"`nmt models list` shows both bundled models: {listed.stdout!r}")
    server = subprocess.Popen([installed, "serve", "--port", "0", "--threads", "1", "--request-timeout", "240"],
                              stderr=subprocess.PIPE, text=True, env=env)
    try:
        banner = server.stderr.readline()
        url = re.search(r"http://[0-9.]+:\d+", banner)
        check(url is not None and "pairs: de-en en-de" in banner, f"nmt serve offers both directions: {banner!r}")
        if url:
            with urllib.request.urlopen(url.group(0) + "/languages", timeout=60) as answer:
                langs = {entry["code"]: entry["targets"] for entry in json.load(answer)}
            check(langs == {"en": ["de"], "de": ["en"]}, f"/languages: en -> de and de -> en: {langs}")
            request = urllib.request.Request(
                url.group(0) + "/translate", data=json.dumps({"q": german.split("\n")[0], "source": "de",
                                                              "target": "en"}).encode(),
                headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=240) as answer:
                served = json.load(answer)["translatedText"]
            check(served == routed.stdout.split("\n")[0], f"/translate de -> en answers as the CLI: {served!r}")
    finally:
        server.terminate()
        server.wait(timeout=60)

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
