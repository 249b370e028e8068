"""Ports of LibreTranslate's test_api_suggest.py
(see tests/serve/libretranslate_tests_check.py for the three forms of a port)."""
from libretranslate_ports.common import (SRC, TGT, documented, port, same, server)


SG = "test_api_suggest.py::"
SUGGEST_OFF = {"error": "Suggestions are disabled on this server."}


# docs/serve.md: "Suggestions are refused (403), as LibreTranslate without --suggestions". Each of their
# --suggestions tests is answered 403 with that message, whatever its fields.
def suggest_refused(fields, as_json=False):
    s = server()
    r = s.post("/suggest", json=fields) if as_json else s.post("/suggest", data=fields)
    documented(r.status_code == 403 and r.json() == SUGGEST_OFF,
               f"POST /suggest {'json' if as_json else 'form'} {fields}", r)


@port(SG + "test_api_suggest", "documented")
def _():
    suggest_refused({"q": "Hello", "s": "Hallo", "source": SRC, "target": TGT})


@port(SG + "test_api_suggest_json", "documented")
def _():
    suggest_refused({"q": "Hello", "s": "Hallo", "source": SRC, "target": TGT}, as_json=True)


@port(SG + "test_api_suggest_missing_parameter", "documented")
def _():
    suggest_refused({"q": "Hello", "source": SRC, "target": TGT})


@port(SG + "test_api_suggest_missing_q", "documented")
def _():
    suggest_refused({"s": "Hallo", "source": SRC, "target": TGT})


@port(SG + "test_api_suggest_missing_source", "documented")
def _():
    suggest_refused({"q": "Hello", "s": "Hallo", "target": TGT})


@port(SG + "test_api_suggest_missing_target", "documented")
def _():
    suggest_refused({"q": "Hello", "s": "Hallo", "source": SRC})


@port(SG + "test_api_suggest_disabled", "same")
def _():
    r = server().post("/suggest", data={"q": "Hello", "s": "Hallo", "source": SRC, "target": TGT})
    same(r.status_code == 403, "POST /suggest form", r)
