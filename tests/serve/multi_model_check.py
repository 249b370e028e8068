"""`nmt serve` with two models: the bundled en-de model and the opus fixture (also en-de) collide, and the
server refuses to start; with the fixture relabelled fr-de, both pairs are served, each answer equals
`nmt translate -m` of its model, and source auto picks the pair of the detected language."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from serve_support import SENTENCES, Server, check, cli_translate

nmt = sys.argv[1]
bundled = os.environ["NMT_MODEL"]
fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "opus", "model")

# Both models translate en to de: a request could not name the one it means.
out = subprocess.run([nmt, "serve", "--port", "0", "-m", bundled, "-m", fixture], capture_output=True, text=True,
                     timeout=120)
check(out.returncode == 64 and "both translate en to de" in out.stderr and "one model per language pair"
      in out.stderr, f"two en-de models refused at start: {out.returncode} {out.stderr!r}")

FRENCH = "Un homme avec un chapeau orange regarde quelque chose dans la rue."
with tempfile.TemporaryDirectory() as tmp:
    french = os.path.join(tmp, "fr-de")
    shutil.copytree(fixture, french)
    with open(os.path.join(french, "model.json")) as f:
        description = json.load(f)
    description["source_lang"] = "fr"
    with open(os.path.join(french, "model.json"), "w") as f:
        json.dump(description, f)

    with Server(nmt, "-m", bundled, "-m", french) as s:
        langs = s.get("/languages").json()
        check(langs == [{"code": "en", "name": "English", "targets": ["de"]},
                        {"code": "fr", "name": "French", "targets": ["de"]},
                        {"code": "de", "name": "German", "targets": []}], f"/languages: both pairs: {langs}")
        ENGLISH = SENTENCES[10]  # 20 letters or more: long enough for CLD2 to tell
        en_cli = cli_translate(nmt, [ENGLISH], "-m", bundled)
        fr_cli = cli_translate(nmt, [FRENCH], "-m", french)
        r = s.post("/translate", json={"q": ENGLISH, "source": "en", "target": "de"})
        check(r.json() == {"translatedText": en_cli[0]}, f"en-de from the bundled model: {r.text}")
        r = s.post("/translate", json={"q": FRENCH, "source": "fr", "target": "de"})
        check(r.json() == {"translatedText": fr_cli[0]}, f"fr-de from the second model: {r.text} vs {fr_cli}")
        check(en_cli[0] != fr_cli[0], "the two models answer differently")

        r = s.post("/translate", json={"q": FRENCH, "source": "auto", "target": "de"}).json()
        check(r["translatedText"] == fr_cli[0] and r["detectedLanguage"]["language"] == "fr"
              and 50 <= r["detectedLanguage"]["confidence"] <= 100, f"source auto, French: the fr-de model: {r}")
        r = s.post("/translate", json={"q": ENGLISH, "source": "auto", "target": "de"}).json()
        check(r["translatedText"] == en_cli[0] and r["detectedLanguage"]["language"] == "en"
              and r["detectedLanguage"]["confidence"] > 0, f"source auto, English: the en-de model: {r}")
        r = s.post("/translate", json={"q": "Hello", "source": "auto", "target": "de"}).json()
        check(r["detectedLanguage"] == {"confidence": 0, "language": "en"},
              f"source auto, too short to tell: the first pair into de: {r}")
        r = s.post("/detect", data={"q": FRENCH}).json()
        check(r[0]["language"] == "fr" and r[0]["confidence"] >= 50, f"/detect French: {r}")
        status, err = s.stop()
        check(status == 0, f"SIGTERM: exit 0 ({status}, {err!r})")
print("all passed")
