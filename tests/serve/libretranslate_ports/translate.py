"""Ports of LibreTranslate's test_api_translate.py
(see tests/serve/libretranslate_tests_check.py for the three forms of a port)."""
from libretranslate_ports.common import (SRC, TGT, documented, known, port, refused_as, same, server, translate)


T = "test_api_translate.py::"


@port(T + "test_api_translate", "same")
def _():
    r, req = translate(format="text")
    same(r.status_code == 200 and "translatedText" in r.json(), req, r)


@port(T + "test_api_translate_batch", "same")
def _():
    r, req = translate(json_body=True, q=["Hello", "World"], format="text")
    same(r.status_code == 200 and isinstance(r.json()["translatedText"], list) and len(r.json()["translatedText"]) == 2,
         req, r)


@port(T + "test_api_translate_unsupported_language", "known")
def _():
    r, req = translate(target="zz", format="text")
    refused_as(r, req, "zz is not supported")


@port(T + "test_api_translate_missing_parameter", "same")
def _():
    r, req = translate(q=None, format="text")
    same(r.status_code == 400 and r.json() == {"error": "Invalid request: missing q parameter"}, req, r)


@port(T + "test_api_translate_missing_source", "same")
def _():
    r, req = translate(source=None)
    same(r.status_code == 400 and r.json() == {"error": "Invalid request: missing source parameter"}, req, r)


@port(T + "test_api_translate_missing_target", "same")
def _():
    r, req = translate(target=None)
    same(r.status_code == 400 and r.json() == {"error": "Invalid request: missing target parameter"}, req, r)


@port(T + "test_api_translate_unsupported_format", "known")
def _():
    r, req = translate(format="xml")
    refused_as(r, req, "xml format is not supported")


@port(T + "test_api_translate_invalid_alternatives", "known")
def _():
    r, req = translate(alternatives="abc")
    refused_as(r, req, "Invalid request: alternatives parameter is not a number")


@port(T + "test_api_translate_alternatives", "same")
def _():
    r, req = translate(json_body=True, q="Hello world, this is a test", alternatives=3)
    same(r.status_code == 200 and "translatedText" in r.json() and isinstance(r.json().get("alternatives"), list),
         req, r)


@port(T + "test_api_translate_auto_detect_source", "same")
def _():
    r, req = translate(q="This is a sentence written in English for testing purposes", source="auto")
    same(r.status_code == 200 and "translatedText" in r.json() and r.json()["detectedLanguage"]["language"] == "en"
         and r.json()["detectedLanguage"]["confidence"] > 0, req, r)


@port(T + "test_api_translate_html_format", "same")
def _():
    r, req = translate(q="<p>Hello</p>", format="html")
    same(r.status_code == 200 and "<p>" in r.json()["translatedText"] and "</p>" in r.json()["translatedText"], req, r)


@port(T + "test_api_translate_non_translatable_returns_source", "same")
def _():
    r, req = translate(q="😀")
    same(r.status_code == 200 and r.json()["translatedText"] == "😀", req, r)


@port(T + "test_api_translate_empty_batch", "known")
def _():
    r, req = translate(json_body=True, q=[])
    known(r.status_code == 400 and r.json().get("error") == "Invalid request: missing q parameter", req, r,
          '400 {"error": "Invalid request: missing q parameter"}')


# Theirs translates the reverse of the loaded pair (es->en); an en->de model serves en->de only (docs/serve.md:
# "Each -m DIR serves its model's pair"), and a pair no model serves is 400 (docs/serve.md, API).
@port(T + "test_api_translate_spanish_to_english", "documented")
def _():
    r, req = translate(q="Hallo Welt", source=TGT, target=SRC)
    documented(r.status_code == 400 and "error" in r.json(), req, r)


# Theirs monkeypatches a function to raise; nmt has no hook to make a handler throw. docs/serve.md: "500 the
# translation failed (whatever a handler throws ... is that request's 500)". The observable part: a request
# that does not fail is not a 500 and every error is JSON (serve_hostile drives the failing paths).
@port(T + "test_api_translate_error_returns_json_500", "documented")
def _():
    r, req = translate(format="text")
    documented(r.status_code == 200 and r.headers["Content-Type"].startswith("application/json"), req, r)


@port(T + "test_api_translate_invalid_json_body", "known")
def _():
    r = server().post("/translate", json=["not", "a", "dict"])
    req = "POST /translate json ['not', 'a', 'dict']"
    refused_as(r, req, "Invalid JSON format")


@port(T + "test_api_translate_batch_html", "same")
def _():
    r, req = translate(json_body=True, q=["<p>Hello</p>", "<p>World</p>"], format="html")
    got = r.json()["translatedText"]
    same(r.status_code == 200 and isinstance(got, list) and "<p>" in got[0], req, r)


@port(T + "test_api_translate_batch_non_translatable", "same")
def _():
    r, req = translate(json_body=True, q=["😀", "😁"])
    same(r.status_code == 200 and r.json()["translatedText"] == ["😀", "😁"], req, r)


@port(T + "test_api_translate_batch_alternatives", "same")
def _():
    r, req = translate(json_body=True, q=["Hello", "World"], alternatives=2)
    same(r.status_code == 200 and isinstance(r.json().get("alternatives"), list) and len(r.json()["alternatives"]) == 2,
         req, r)


@port(T + "test_api_translate_batch_auto_detect", "same")
def _():
    r, req = translate(json_body=True, q=["Hello there", "Good morning"], source="auto")
    same(r.status_code == 200 and len(r.json()["detectedLanguage"]) == 2
         and all(d["language"] == "en" for d in r.json()["detectedLanguage"]), req, r)


@port(T + "test_api_translate_unsupported_source_language", "known")
def _():
    r, req = translate(source="zz")
    refused_as(r, req, "zz is not supported")


# Theirs starts with --translation-cache all and looks into its storage; nmt keeps no cache (docs/serve.md: the
# server reads no file but its models and keys; answers equal `nmt translate`'s). The observable part: the same
# request twice gives the same answer.
@port(T + "test_api_translate_uses_cache", "documented")
def _():
    first, req = translate()
    second, _ = translate()
    documented(first.status_code == 200 and second.status_code == 200
               and first.json()["translatedText"] == second.json()["translatedText"], req + " twice", second)
