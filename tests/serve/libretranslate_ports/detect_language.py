"""Ports of LibreTranslate's test_api_detect_language.py
(see tests/serve/libretranslate_tests_check.py for the three forms of a port)."""
from libretranslate_ports.common import (port, same, same_status, server)


D = "test_api_detect_language.py::"


@port(D + "test_api_detect_language", "same")
def _():
    r = server().post("/detect", data={"q": "Hello"})
    same(r.status_code == 200 and len(r.json()) >= 1 and "confidence" in r.json()[0] and "language" in r.json()[0],
         "POST /detect form {'q': 'Hello'}", r)


@port(D + "test_api_detect_language_must_fail_without_parameters", "same")
def _():
    r = server().post("/detect")
    same(r.status_code == 400 and "error" in r.json(), "POST /detect (no body)", r)


@port(D + "test_api_detect_language_must_fail_bad_request_type", "same")
def _():
    same_status("GET", "/detect", 405)


@port(D + "test_api_detect_language_batch", "same")
def _():
    q = ["This is an English sentence", "Esta es una oración en español"]
    r = server().post("/detect", json={"q": q})
    same(r.status_code == 200 and isinstance(r.json(), list) and len(r.json()) >= 1, f"POST /detect json q={q}", r)


@port(D + "test_api_detect_language_json", "same")
def _():
    r = server().post("/detect", json={"q": "This is an English sentence for detection"})
    same(r.status_code == 200 and r.json()[0]["language"] == "en",
         "POST /detect json q='This is an English sentence for detection'", r)
