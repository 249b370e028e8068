"""Ports of LibreTranslate's test_language_variant_fallback.py, test_api_translate_tm.py and
test_api_tm_management.py
(see tests/serve/libretranslate_tests_check.py for the three forms of a port)."""
import requests

from libretranslate_ports.common import (SRC, TGT, documented, known, port, same, server, translate)


V = "test_language_variant_fallback.py::"


# Theirs serves en,pb (or en,pt) and detects Portuguese under the other code. No checked-in model's code differs
# from CLD2's, so the port keeps what holds for one model: auto on text of the served source language translates
# (docs/serve.md: the detected code is mapped onto a served source's naming the same language).
@port(V + "test_auto_detect_fallback_pt_to_pb", "documented")
def _():
    r, req = translate(q="A man in an orange hat is looking at something.", source="auto")
    documented(r.status_code == 200 and len(r.json()["translatedText"]) > 0, req, r)


@port(V + "test_auto_detect_fallback_pb_to_pt", "documented")
def _():
    r, req = translate(q="Two dogs are playing with a ball in the snow.", source="auto")
    documented(r.status_code == 200 and len(r.json()["translatedText"]) > 0, req, r)


@port(V + "test_explicit_language_no_fallback", "same")
def _():
    r, req = translate(target="pt", format="text")
    same(r.status_code == 400 and "error" in r.json(), req, r)


TM = "test_api_translate_tm.py::TestApiTranslateTM."


def tm_known(fields, expected):
    r, req = translate(json_body=True, **fields)
    known("retrieved_from_tm" in r.json(), req, r, expected)


@port(TM + "test_1_translate_save_to_tm", "known")
def _():
    tm_known({"q": "New text to translate"}, "200 with retrieved_from_tm: false, the translation saved to memory")


@port(TM + "test_2_translate_from_tm", "known")
def _():
    tm_known({"q": "Text already in TM"}, "200 the stored translation, retrieved_from_tm: true")


@port(TM + "test_3_translate_batch_tm", "known")
def _():
    tm_known({"q": ["Hello from batch", "Goodbye from batch"]}, "200 the stored translations, retrieved_from_tm: true")


@port(TM + "test_4_translate_auto_source_save_to_tm", "known")
def _():
    tm_known({"q": "This is English text", "source": "auto"}, "200 with retrieved_from_tm: false, saved under en")


@port(TM + "test_5_translate_from_tm_respects_target_lang", "known")
def _():
    tm_known({"q": "Hello"}, "200 the memory's translation for the target asked, retrieved_from_tm: true")


TMM = "test_api_tm_management.py::TestApiTmManagement."


def tm_endpoint(method, path, body, expected):
    r = requests.request(method, server().url + path, json=body, timeout=60)
    known(False, f"{method} {path}" + (f" json {body}" if body else ""), r, expected)


@port(TMM + "test_1_add_tm_entry_success", "known")
def _():
    tm_endpoint("POST", "/tm/entries", {"source_text": "Hello API", "target_text": "Hallo API", "source_lang": SRC,
                                        "target_lang": TGT, "user_id": 123, "confidence": 0.85},
                '201 {"message": "TM entry added successfully"}')


@port(TMM + "test_2_add_tm_entry_missing_fields", "known")
def _():
    tm_endpoint("POST", "/tm/entries", {"source_text": "Incomplete", "source_lang": SRC, "target_lang": TGT},
                "400, an error with 'Missing required fields'")


@port(TMM + "test_3_add_tm_entry_invalid_lang_codes", "known")
def _():
    tm_endpoint("POST", "/tm/entries", {"source_text": "Text", "target_text": "Text", "source_lang": "invalidlang",
                                        "target_lang": TGT}, "400, an error with 'Invalid source_lang or target_lang'")


@port(TMM + "test_4_list_tm_entries_basic_and_pagination", "known")
def _():
    tm_endpoint("GET", "/tm/entries?page=1&per_page=10", None, "200 a page of entries")


@port(TMM + "test_5_list_tm_entries_filtered", "known")
def _():
    tm_endpoint("GET", "/tm/entries?source_lang=en", None, "200 the entries from en")


@port(TMM + "test_6_delete_tm_entry_success", "known")
def _():
    tm_endpoint("DELETE", "/tm/entries/1", None, '200 {"success": true}')


@port(TMM + "test_7_delete_tm_entry_not_found", "known")
def _():
    tm_endpoint("DELETE", "/tm/entries/99999", None, "404, an error with 'TM entry not found or could not be deleted'")
