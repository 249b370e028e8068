"""Ports of LibreTranslate's test_api_translate_file.py
(see tests/serve/libretranslate_tests_check.py for the three forms of a port)."""
import http.client

from libretranslate_ports.common import (SRC, TGT, documented, known, lacks_option, port, refused_as, same, server,
                                         translate_file)


TF = "test_api_translate_file.py::"


@port(TF + "test_api_translate_file", "same")
def _():
    r, req = translate_file(content=b"Hello world, this is a test.")
    same(r.status_code == 200 and "translatedFileUrl" in r.json(), req, r)


@port(TF + "test_api_translate_file_and_download", "same")
def _():
    r, req = translate_file(content=b"Hello world, this is a test.")
    url = r.json()["translatedFileUrl"]
    d = server().get(url[url.index("/download_file"):])
    same(d.status_code == 200 and len(d.content) > 0 and d.content != b"Hello world, this is a test.",
         req + "; GET " + url[url.index("/download_file"):], d)


@port(TF + "test_api_translate_file_missing_file", "same")
def _():
    r = server().post("/translate_file", data={"source": SRC, "target": TGT}, files={"x": ("", b"")})
    same(r.status_code == 400, f"POST /translate_file multipart {{'source': {SRC}, 'target': {TGT}}} no file", r)


@port(TF + "test_api_translate_file_missing_source", "known")
def _():
    r, req = translate_file(source=None)
    known(r.status_code == 400 and r.json().get("error") == "Invalid request: missing source parameter", req, r,
          '400 {"error": "Invalid request: missing source parameter"}')


@port(TF + "test_api_translate_file_missing_target", "same")
def _():
    r, req = translate_file(target=None)
    same(r.status_code == 400 and r.json() == {"error": "Invalid request: missing target parameter"}, req, r)


@port(TF + "test_api_translate_file_unsupported_format", "known")
def _():
    r, req = translate_file(filename="program.exe", content=b"MZ\x90\x00")
    refused_as(r, req, "Invalid request: file format not supported")


@port(TF + "test_api_translate_file_unsupported_language", "known")
def _():
    r, req = translate_file(target="zz")
    refused_as(r, req, "zz is not supported")


@port(TF + "test_api_translate_file_unsupported_source_language", "known")
def _():
    r, req = translate_file(source="zz")
    refused_as(r, req, "zz is not supported")


@port(TF + "test_api_translate_file_auto_detect_source", "same")
def _():
    r, req = translate_file(source="auto", content=b"Hello world, this is an English sentence.")
    same(r.status_code == 200 and "translatedFileUrl" in r.json(), req, r)


# Theirs fakes a detected fr with no fr model; ours sends French text. docs/serve.md: 400 naming the language,
# "German (de) is not available as a target language from French (fr)", where theirs says "fr is not supported".
@port(TF + "test_api_translate_file_auto_detect_unsupported", "documented")
def _():
    text = "Bonjour, ceci est un test. Un homme avec un chapeau orange regarde quelque chose dans la rue."
    r, req = translate_file(source="auto", content=text.encode())
    documented(r.status_code == 400
               and r.json()["error"].startswith("German (de) is not available as a target language from French (fr)"),
               req, r)


# Theirs monkeypatches the file translator to raise; nothing in nmt can be made to throw from outside. The
# observable part: a file that translates is no 500, and the answer is JSON (docs/serve.md: errors are JSON).
@port(TF + "test_api_translate_file_error_returns_500", "documented")
def _():
    r, req = translate_file()
    documented(r.status_code == 200 and r.headers["Content-Type"].startswith("application/json"), req, r)


# docs/serve.md: "--max-chars holds documents too" (theirs lets a file past --char-limit): a .txt counts its
# characters, so 28 characters over --max-chars 5 are refused.
@port(TF + "test_api_translate_file_char_limit", "documented")
def _():
    r, req = translate_file("chars5", content=b"Hello world, this is a test.")
    documented(r.status_code == 400 and "exceeds text limit" in r.json()["error"], "nmt serve --max-chars 5; " + req, r)


@port(TF + "test_api_translate_file_disabled", "known")
def _():
    lacks_option(["--disable-files-translation"], "POST /translate_file is 403")


@port(TF + "test_api_download_file_disabled", "known")
def _():
    lacks_option(["--disable-files-translation"], "GET /download_file/anything.txt is 400")


@port(TF + "test_api_download_file_path_traversal", "known")
def _():
    # http.client sends the path as written; requests would fold the dot segment into "/".
    s = server()
    conn = http.client.HTTPConnection(s.host, s.port, timeout=60)
    conn.request("GET", "/download_file/..")
    resp = conn.getresponse()
    body = resp.read().decode("utf-8", "replace")
    conn.close()
    answer = f"{resp.status} {resp.getheader('Content-Type')} {body.strip()[:120]}"
    same(resp.status != 200, "GET /download_file/..", answer)  # no file, nor anything else, is served
    known(resp.status == 400 and body.strip().startswith("{") and '"Invalid filename"' in body, "GET /download_file/..",
          answer, '400 {"error": "Invalid filename"}')
