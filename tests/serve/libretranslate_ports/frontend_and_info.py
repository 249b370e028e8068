"""Ports of LibreTranslate's test_api_frontend.py, test_api_health.py, test_api_frontend_settings.py,
test_api_get_languages.py and test_api_spec.py
(see tests/serve/libretranslate_tests_check.py for the three forms of a port)."""
import os
import subprocess

from libretranslate_ports.common import (SRC, TGT, documented, known, lacks_option, nmt, port, refused_option, same,
                                         same_status, server)


F = "test_api_frontend.py::"


@port(F + "test_index", "known")
def _():
    r = same_status("GET", "/", 200)
    title = r.text.split("<title>")[1].split("<")[0]
    known("LibreTranslate" in r.text, "GET /", f"200 text/html, <title>{title}</title>, no 'LibreTranslate' in it",
          "200, a page containing 'LibreTranslate'")


@port(F + "test_index_disabled_web_ui", "known")
def _():
    lacks_option(["--disable-web-ui"], "GET / is 404")


@port(F + "test_appjs", "known")
def _():
    r = server().get("/js/app.js")
    known(r.status_code == 200 and "application/javascript" in r.headers.get("Content-Type", ""), "GET /js/app.js", r,
          "200 application/javascript")


@port(F + "test_appjs_disabled_web_ui", "known")
def _():
    lacks_option(["--disable-web-ui"], "GET /js/app.js is 404")


@port(F + "test_appjs_secret_headers", "known")
def _():
    lacks_option(["--require-api-key-secret"], "GET /js/app.js is 200 with Cache-Control: no-store")


@port(F + "test_appjs_serves_secret_to_browser", "known")
def _():
    lacks_option(["--require-api-key-secret"], "GET /js/app.js after GET / carries the secret (String.fromCharCode)")


@port(F + "test_index_custom_title", "known")
def _():
    lacks_option(["--frontend-title", "My Custom Title"], "GET / shows 'My Custom Title'")


@port(F + "test_index_lang_param_sets_cookie", "known")
def _():
    r = same_status("GET", "/?lang=es", 200)
    known("preferred_lang=es" in r.headers.get("Set-Cookie", ""), "GET /?lang=es",
          f"200, Set-Cookie: {r.headers.get('Set-Cookie')}", "200, Set-Cookie: preferred_lang=es")


@port(F + "test_cors_headers", "known")
def _():
    r = server().get("/health")
    same(r.headers.get("Access-Control-Allow-Origin") == "*", "GET /health", dict(r.headers))
    known(r.headers.get("Access-Control-Allow-Methods") == "GET, POST", "GET /health",
          f"Access-Control-Allow-Methods: {r.headers.get('Access-Control-Allow-Methods')}",
          "Access-Control-Allow-Methods: GET, POST")


@port(F + "test_frontend_settings_content", "same")
def _():
    r = server().get("/frontend/settings")
    st = r.json()
    same(r.status_code == 200 and st["apiKeys"] is False and st["keyRequired"] is False and st["suggestions"] is False
         and st["filesTranslation"] is True and ".txt" in st["supportedFilesFormat"]
         and st["language"]["source"]["code"] == "auto", "GET /frontend/settings", r)


# Their --char-limit is our --max-chars (docs/serve.md: charLimit is --max-chars).
@port(F + "test_frontend_settings_char_limit", "same")
def _():
    r = server("chars42").get("/frontend/settings")
    same(r.json()["charLimit"] == 42, "nmt serve --max-chars 42; GET /frontend/settings", r)


# docs/serve.md: "Suggestions are refused (403), as LibreTranslate without --suggestions": no such option.
@port(F + "test_frontend_settings_suggestions", "documented")
def _():
    rc, err = refused_option("--suggestions")
    documented(rc != 0, "nmt serve --suggestions", f"exit {rc}: {err}")
    r = server().get("/frontend/settings")
    documented(r.json()["suggestions"] is False, "GET /frontend/settings", r)


@port(F + "test_frontend_settings_files_disabled", "known")
def _():
    lacks_option(["--disable-files-translation"], "filesTranslation false, supportedFilesFormat []")


# Theirs: --api-keys with a key database and --require-api-key-origin; ours: --api-keys FILE (docs/serve.md:
# "no key database: keys come from a file"), which requires a key of every request.
@port(F + "test_frontend_settings_key_required", "documented")
def _():
    r = server("keys").get("/frontend/settings")
    documented(r.json()["apiKeys"] is True and r.json()["keyRequired"] is True,
               "nmt serve --api-keys FILE; GET /frontend/settings", r)


@port(F + "test_frontend_settings_target_language", "known")
def _():
    lacks_option(["--frontend-language-target", TGT], f"language.target.code == {TGT}")


@port(F + "test_frontend_settings_source_language", "known")
def _():
    lacks_option(["--frontend-language-source", SRC], f"language.source.code == {SRC}")


@port(F + "test_frontend_settings_source_fallback", "known")
def _():
    lacks_option(["--frontend-language-source", "zz"], "language.source.code falls back to en")


@port(F + "test_index_locale_override_header", "same")
def _():
    r = server().get("/", headers={"X-Override-Accept-Language": "es"})
    same(r.status_code == 200, "GET / with X-Override-Accept-Language: es", r)


@port(F + "test_index_preferred_lang_cookie", "same")
def _():
    r = server().get("/", cookies={"preferred_lang": "es"})
    same(r.status_code == 200, "GET / with Cookie preferred_lang=es", r)


@port(F + "test_powercycle_exits", "known")
def _():
    proc = subprocess.Popen([nmt, "serve", "--port", "0"], env={**os.environ, "LT_POWERCYCLE": "1"},
                            stderr=subprocess.PIPE, text=True)
    first = proc.stderr.readline().strip()
    try:
        rc = proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        rc = None
        proc.kill()
        proc.wait()
    known(rc is not None, "LT_POWERCYCLE=1 nmt serve", f"still running after 3 s ({first})", "exits at start")


H = "test_api_health.py::"


# docs/serve.md: /health answers {"status": "ok", "merged_requests": N, "memory_returned": M}: two fields more
# than LibreTranslate's.
@port(H + "test_api_get_health", "documented")
def _():
    r = server().get("/health")
    fields = {"status", "merged_requests", "memory_returned"}
    documented(r.status_code == 200 and r.json()["status"] == "ok" and set(r.json()) == fields, "GET /health", r)


@port(H + "test_api_health_must_fail_bad_request_type", "same")
def _():
    same_status("POST", "/health", 405)


FS = "test_api_frontend_settings.py::"


@port(FS + "test_api_get_frontend_settings", "same")
def _():
    same_status("GET", "/frontend/settings", 200)


GL = "test_api_get_languages.py::"


@port(GL + "test_api_get_languages", "same")
def _():
    r = server().get("/languages")
    same(r.status_code == 200 and len(r.json()) >= 1 and "code" in r.json()[0] and "name" in r.json()[0],
         "GET /languages", r)


@port(GL + "test_api_get_languages_must_fail_bad_request_type", "same")
def _():
    same_status("POST", "/languages", 405)


SP = "test_api_spec.py::"


@port(SP + "test_api_get_spec", "same")
def _():
    same_status("GET", "/spec", 200)


@port(SP + "test_api_get_spec_must_fail_bad_request_type", "same")
def _():
    same_status("POST", "/spec", 405)
