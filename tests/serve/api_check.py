"""LibreTranslate's API and /v1 as clients use them (python requests and LibreTranslate's documented curl
examples): every answer equals `nmt translate`'s for the same input and options."""
import json
import os
import re
import subprocess
import tempfile
import sys
import urllib.parse

import requests
from concurrent.futures import ThreadPoolExecutor

from serve_support import SENTENCES, Server, check, cli_translate

nmt = sys.argv[1]
with Server(nmt) as s:
    langs = s.get("/languages").json()
    check(langs == [{"code": "en", "name": "English", "targets": ["de"]},
                    {"code": "de", "name": "German", "targets": []}], f"/languages: sources and targets: {langs}")

    cli = cli_translate(nmt, SENTENCES)
    r = s.post("/translate", json={"q": SENTENCES[0], "source": "en", "target": "de", "format": "text"})
    check(r.status_code == 200 and r.json() == {"translatedText": cli[0]}, f"/translate json: {r.text}")

    paragraph = SENTENCES[1] + " " + SENTENCES[2] + "\n" + SENTENCES[3]
    r = s.post("/translate", json={"q": [paragraph, SENTENCES[4]], "source": "en", "target": "de"})
    expected = cli_translate(nmt, [SENTENCES[1] + " " + SENTENCES[2], SENTENCES[3], SENTENCES[4]])
    check(r.json()["translatedText"] == [expected[0] + "\n" + expected[1], expected[2]],
          f"/translate array q with a line break: {r.text}")

    r = s.post("/translate", data={"q": SENTENCES[5], "source": "auto", "target": "de"}).json()
    check(r["translatedText"] == cli[5] and r["detectedLanguage"]["language"] == "en"
          and 70 <= r["detectedLanguage"]["confidence"] <= 100, f"/translate form, source auto: {r}")
    r = s.post("/translate", json={"q": "Hi", "source": "auto", "target": "de"}).json()
    check(r["detectedLanguage"] == {"confidence": 0, "language": "en"}, f"source auto, too short: not measured: {r}")

    nbest = cli_translate(nmt, [SENTENCES[6]], "--n-best", "3")
    hyps = [line.split(" ||| ")[1] for line in nbest]
    r = s.post("/translate", json={"q": SENTENCES[6], "source": "en", "target": "de", "alternatives": 2})
    check(r.json() == {"translatedText": hyps[0], "alternatives": hyps[1:]}, f"alternatives = --n-best 3: {r.text}")

    # LibreTranslate's documented curl example (README, "API Usage"), pointed at the pair served.
    curl = subprocess.run(["curl", "-s", "-X", "POST", s.url + "/translate", "-H", "Content-Type: application/json",
                           "-d", json.dumps({"q": SENTENCES[7], "source": "auto", "target": "de", "format": "text",
                                             "alternatives": 0, "api_key": ""})],
                          capture_output=True, text=True)
    check(json.loads(curl.stdout)["translatedText"] == cli[7], f"curl example: {curl.stdout}")
    curl = subprocess.run(["curl", "-s", "-X", "POST", s.url + "/detect", "-d", "q=Hello world"], capture_output=True,
                          text=True)
    check(json.loads(curl.stdout) == [{"confidence": 0, "language": "en"}], f"/detect too short: {curl.stdout}")
    curl = subprocess.run(["curl", "-s", "-X", "POST", s.url + "/detect", "-H", "Content-Type: application/json",
                           "-d", json.dumps({"q": "Ein Mann mit einem orangefarbenen Hut starrt auf etwas."})],
                          capture_output=True, text=True)
    detected = json.loads(curl.stdout)
    check(len(detected) == 1 and detected[0]["language"] == "de" and 70 <= detected[0]["confidence"] <= 100,
          f"/detect German (CLD2): {curl.stdout}")

    # format html: the markup kept, the words those of the sentence translated without it.
    words = SENTENCES[7].split()
    html = "<p>" + words[0] + " <b>" + words[1] + "</b> " + " ".join(words[2:]) + "</p>"
    r = s.post("/translate", json={"q": [html, "<p>A dog runs.</p>"], "source": "en", "target": "de", "format": "html"})
    check(r.status_code == 200, f"html: {r.text}")
    got = r.json()["translatedText"]
    check(len(got) == 2 and all(t.startswith("<p>") and t.endswith("</p>") for t in got), f"html: {got}")
    check(got[0].count("<b>") == 1 and got[0].count("</b>") == 1, f"html bold kept: {got[0]}")
    check(re.sub("<[^>]+>", "", got[0]).split() == cli[7].split(), f"html words = CLI's: {got[0]} vs {cli[7]}")
    check(s.get("/health").json()["status"] == "ok", "/health")

    # LibreTranslate's conventions: codes and media types in any case, format empty or null, a JSON body
    # sent as a form by `curl -d '{...}'`, a form beyond cpp-httplib's 8192-byte form default.
    r = s.post("/translate", data=json.dumps({"q": SENTENCES[0], "source": "EN", "target": "De", "format": ""}),
               headers={"Content-Type": "Application/JSON; charset=UTF-8"})
    check(r.status_code == 200 and r.json() == {"translatedText": cli[0]}, f"EN, Application/JSON, format '': {r.text}")
    r = s.post("/translate", json={"q": SENTENCES[0], "source": "en", "target": "de", "format": None})
    check(r.status_code == 200 and r.json() == {"translatedText": cli[0]}, f"format null: text: {r.text}")
    curl = subprocess.run(["curl", "-s", s.url + "/translate", "-d",
                           json.dumps({"q": SENTENCES[0], "source": "en", "target": "de"})], capture_output=True, text=True)
    check(json.loads(curl.stdout) == {"translatedText": cli[0]}, f"curl -d '{{...}}' (sent as a form): JSON: {curl.stdout}")
    r = s.post("/translate", data={"q": SENTENCES[0], "source": "en", "target": "de", "pad": "x" * 20000})
    check(r.status_code == 200 and r.json() == {"translatedText": cli[0]}, f"a 20 kB form: {r.status_code} {r.text[:200]}")

    def mixed_case_multipart(fields, file=None):  # media type and parameter name in any case, as RFC 9110 allows
        parts = [f'--AbC\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields.items()]
        if file:
            parts.append(f'--AbC\r\nContent-Disposition: form-data; name="file"; filename="{file[0]}"\r\n'
                         f'Content-Type: Text/Plain\r\n\r\n{file[1]}\r\n')
        return {"data": ("".join(parts) + "--AbC--\r\n").encode(),
                "headers": {"Content-Type": "Multipart/Form-Data; Boundary=AbC"}}

    pair = {"source": "en", "target": "de"}
    r = s.post("/translate", **mixed_case_multipart({"q": SENTENCES[0], **pair}))
    check(r.status_code == 200 and r.json() == {"translatedText": cli[0]}, f"Multipart/Form-Data /translate: {r.text}")
    r = s.post("/detect", **mixed_case_multipart({"q": SENTENCES[10]}))
    check(r.status_code == 200 and r.json()[0]["language"] == "en", f"Multipart/Form-Data /detect: {r.text}")
    r = s.post("/translate_file", **mixed_case_multipart(pair, ("a.txt", SENTENCES[0] + "\n")))
    got = requests.get(r.json().get("translatedFileUrl", s.url + "/none"), timeout=60)
    check(got.status_code == 200 and got.text == cli[0] + "\n", f"Multipart/Form-Data /translate_file: {r.text}")
    form = {"headers": {"Content-Type": "Application/X-WWW-Form-Urlencoded; Charset=UTF-8"}}
    r = s.post("/translate", data=urllib.parse.urlencode({"q": SENTENCES[0], **pair}), **form)
    check(r.status_code == 200 and r.json() == {"translatedText": cli[0]}, f"Application/X-WWW-Form-Urlencoded: {r.text}")
    r = s.post("/detect", data=urllib.parse.urlencode({"q": SENTENCES[10]}), **form)
    check(r.status_code == 200 and r.json()[0]["language"] == "en", f"Application/X-WWW-Form-Urlencoded /detect: {r.text}")
    r = s.get("/translate")
    check(r.status_code == 405 and "POST" in r.headers.get("Allow", "") and "error" in r.json(),
          f"GET /translate: 405: {r.status_code} {r.text}")
    r = requests.put(s.url + "/translate", timeout=60)
    check(r.status_code == 405 and r.headers.get("Allow") == "POST", f"PUT /translate: 405: {r.status_code} {r.text}")
    r = s.post("/languages", data={"q": "x"})
    check(r.status_code == 405 and r.headers.get("Allow") == "GET", f"POST /languages: 405: {r.status_code} {r.text}")
    r = s.get("/frontend/settings").json()
    check(r["charLimit"] == 20000 and r["suggestions"] is False and r["filesTranslation"] is True
          and ".txt" in r["supportedFilesFormat"] and ".docx" in r["supportedFilesFormat"] and r["apiKeys"] is False
          and r["language"]["source"]["code"] == "auto" and r["language"]["target"]["code"] == "de"
          and isinstance(r["frontendTimeout"], int), f"/frontend/settings: {r}")
    r = s.post("/suggest", data={"q": "a", "s": "b", "source": "en", "target": "de"})
    check(r.status_code == 403 and r.json() == {"error": "Suggestions are disabled on this server."},
          f"/suggest: 403: {r.status_code} {r.text}")
    spec = s.get("/spec").json()
    check(spec["swagger"] == "2.0" and "post" in spec["paths"]["/translate"] and "get" in spec["paths"]["/languages"]
          and "post" in spec["paths"]["/translate_file"], f"/spec: {sorted(spec['paths'])}")
    r = s.get("/languages")
    check(r.headers.get("Access-Control-Allow-Origin") == "*", f"CORS: any origin by default: {r.headers}")

    # source auto routes through /detect's answer: French text with no fr pair is refused, never mislabelled.
    french = "Un homme avec un chapeau orange regarde quelque chose dans la rue."
    detected = s.post("/detect", json={"q": french}).json()
    r = s.post("/translate", json={"q": french, "source": "auto", "target": "de"})
    check(detected[0]["language"] == "fr" and r.status_code == 400 and "(fr)" in r.json()["error"],
          f"source auto, French, only en-de served: 400 naming fr: {detected} {r.status_code} {r.text}")
    r = s.post("/translate_file", files={"file": ("fr.txt", french.encode())}, data={"source": "auto", "target": "de"})
    check(r.status_code == 400 and "(fr)" in r.json()["error"], f"a French .txt, source auto: 400: {r.status_code} {r.text}")

    # /translate_file: a text file and a document, each the CLI's translation of that file, downloaded by URL.
    with tempfile.TemporaryDirectory() as tmp:
        pairs = [("notes.txt", "\n".join(SENTENCES[:4]) + "\n"),
                 ("page.html", "<html><body><h1>" + SENTENCES[1] + "</h1><p>" + words[0] + " <b>" + words[1] +
                  "</b> " + " ".join(words[2:]) + " <code>x = 1</code></p></body></html>\n")]
        for name, content in pairs:
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
            subprocess.run([nmt, "translate", "-q", "--threads", "2", "-i", path, "-o", path + ".cli"], check=True)
            with open(path + ".cli", "rb") as f:
                expected = f.read()
            r = s.post("/translate_file", files={"file": (name, content.encode())},
                       data={"source": "en", "target": "de"})
            check(r.status_code == 200 and "translatedFileUrl" in r.json(), f"/translate_file {name}: {r.text}")
            url = r.json()["translatedFileUrl"]
            got = requests.get(url, timeout=60)
            check(got.status_code == 200 and got.content == expected,
                  f"/translate_file {name}: the download equals nmt translate -i: {got.content!r} vs {expected!r}")
            stem, ext = name.rsplit(".", 1)
            check(f'filename="{stem}.de.{ext}"' in got.headers.get("Content-Disposition", ""),
                  f"download named {stem}.de.{ext} beside the original: {got.headers.get('Content-Disposition')}")
            again = requests.get(url, timeout=60)
            check(again.status_code == 404 and "error" in again.json(), f"a second download: 404 {again.text}")
    tokens = set()
    for _ in range(8):
        r = s.post("/translate_file", files={"file": ("a.txt", b"A dog.\n")}, data={"source": "en", "target": "de"})
        tokens.add(r.json()["translatedFileUrl"].rsplit("/", 1)[1])
    check(len(tokens) == 8 and all(re.fullmatch("[0-9a-f]{32,}", t) for t in tokens),
          f"download tokens: 32+ hex digits, each distinct: {sorted(tokens)[:2]}")
    r = s.post("/translate_file", files={"file": ("x.pdf", b"%PDF-1.4")}, data={"source": "en", "target": "de"})
    check(r.status_code == 400 and ".pdf" in r.json()["error"], f"/translate_file .pdf refused: {r.text}")
    r = s.get("/download_file/" + "0" * 32)
    check(r.status_code == 404 and "error" in r.json(), f"unknown download: 404 {r.text}")

    # /v1/translate: the CLI's JSON lines in and out, with its options by field name.
    body = '{"text": "A dog runs."}\n{"text": "A cat sleeps.", "prefix": "Eine"}\n{"text": 3}\n'
    r = s.post("/v1/translate?source=en&target=de&n_best=2&alignment=true&word_scores=true", data=body)
    cli_jsonl = cli_translate(nmt, None, "--input-format", "jsonl", "--output-format", "jsonl", "--n-best", "2",
                              "--alignment", "--word-scores", stdin=body)
    check(r.status_code == 200 and r.text.splitlines() == cli_jsonl, f"/v1/translate = CLI jsonl: {r.text}")
    r = s.post("/v1/translate?source=en&target=de&beam_size=999", data=body)
    check(r.status_code == 400 and "beam_size" in r.json()["error"], f"/v1 option out of range: {r.text}")
    r = s.post("/v1/attention", json={"q": SENTENCES[0], "source": "en", "target": "de"})
    check(r.status_code == 200 and r.text.startswith("<?xml") and "<svg" in r.text, "/v1/attention: an SVG")
    check("<script>" in s.get("/").text and "http" not in s.get("/").text.split("<script>")[0].replace(
        'http-equiv', ''), "GET /: a page without external assets")

    # Many clients at once: batched together, each answer the CLI's.
    def one(i):
        return s.post("/translate", json={"q": SENTENCES[i % len(SENTENCES)], "source": "en", "target": "de"}).json()

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(one, range(64)))
    check(all(a["translatedText"] == cli[i % len(cli)] for i, a in enumerate(answers)),
          "64 requests from 16 clients: each the CLI's translation")
    merged = s.get("/health").json()["merged_requests"]
    check(merged > 0, f"requests merged into shared batches: {merged}")
    status, err = s.stop()
    check(status == 0, f"SIGTERM: exit 0 ({status}, {err!r})")
print("all passed")
