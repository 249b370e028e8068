"""Ports of LibreTranslate's test_api_api_keys.py, test_api_limits.py and
test_api_download_file_access_check.py
(see tests/serve/libretranslate_tests_check.py for the three forms of a port)."""
from libretranslate_ports.common import (documented, known, lacks_option, port, refused_option, same, server,
                                        translate, translate_file)


K = "test_api_api_keys.py::"


# Theirs: a key database with --require-api-key-origin, a keyless request 400 "Please contact the server operator
# to get an API key". docs/serve.md: keys come from a file, and a missing key is 403 "Invalid API key".
@port(K + "test_api_key_required_for_programmatic_access", "documented")
def _():
    r, req = translate("keys")
    documented(r.status_code == 403 and r.json() == {"error": "Invalid API key"}, "nmt serve --api-keys FILE; " + req,
               r)


@port(K + "test_api_key_not_required_from_allowed_origin", "known")
def _():
    r, req = translate("keys", headers={"Origin": "https://allowed.example.com"})
    known(r.status_code == 200, "nmt serve --api-keys FILE; " + req, r,
          "200 (with --require-api-key-origin '^https://allowed\\.example\\.com$', which nmt lacks: "
          + refused_option("--require-api-key-origin", "x")[1] + ")")


@port(K + "test_api_invalid_key_is_rejected", "same")
def _():
    r, req = translate("keys", api_key="bogus-key")
    same(r.status_code == 403 and r.json() == {"error": "Invalid API key"}, "nmt serve --api-keys FILE; " + req, r)


@port(K + "test_api_valid_key_is_accepted", "same")
def _():
    r, req = translate("keys", api_key="valid-key")
    same(r.status_code == 200, "nmt serve --api-keys FILE; " + req, r)


@port(K + "test_api_get_api_key_link_in_error", "known")
def _():
    lacks_option(["--get-api-key-link", "https://keys.example.com"],
                 "400 {\"error\": \"Visit https://keys.example.com to get an API key\"}")


# Theirs: --under-attack makes keys required (keyless 400). nmt with --api-keys always requires one; docs/serve.md
# gives a missing key 403.
@port(K + "test_api_under_attack_requires_key", "documented")
def _():
    r, req = translate("keys")
    documented(r.status_code == 403, "nmt serve --api-keys FILE; " + req, r)
    r, req = translate("keys", api_key="valid-key")
    documented(r.status_code == 200, "nmt serve --api-keys FILE; " + req, r)


@port(K + "test_api_secret_grants_access", "known")
def _():
    lacks_option(["--require-api-key-secret"], "the rotating server secret is accepted in place of a key")


@port(K + "test_api_fingerprint_mismatch_requires_key", "known")
def _():
    lacks_option(["--require-api-key-fingerprint"], "a second User-Agent from the same IP needs a key (400)")


# Theirs counts keyless requests as flood violations; docs/serve.md: "There are no per-client request limits":
# each keyless request is 403, none bans the client.
@port(K + "test_api_need_key_reports_flood_violation", "documented")
def _():
    for _ in range(3):
        r, req = translate("keys")
        documented(r.status_code == 403, "nmt serve --api-keys FILE; " + req, r)
    r, req = translate("keys", api_key="valid-key")
    documented(r.status_code == 200, "after 3 keyless requests; " + req, r)


@port(K + "test_api_secret_via_json_body", "known")
def _():
    lacks_option(["--require-api-key-secret"], "the secret in a JSON body is accepted in place of a key")


@port(K + "test_api_bogus_secret_returns_emoji", "known")
def _():
    lacks_option(["--require-api-key-secret"], "a bogus secret is answered with an emoji")


# Theirs gives one key of the database char_limit=3. docs/serve.md: "no key database: keys come from a file",
# one limit for all: a key's request within --max-chars passes.
@port(K + "test_api_key_char_limit_override", "documented")
def _():
    r, req = translate("keys", api_key="limited-key")
    documented(r.status_code == 200, "nmt serve --api-keys FILE; " + req, r)


L = "test_api_limits.py::"


@port(L + "test_api_char_limit", "same")
def _():
    r, req = translate("chars5", q="This text is too long")
    same(r.status_code == 400 and "exceeds text limit" in r.json()["error"], "nmt serve --max-chars 5; " + req, r)


@port(L + "test_api_char_limit_ok", "same")
def _():
    r, req = translate("chars100", q="Short")
    same(r.status_code == 200, "nmt serve --max-chars 100; " + req, r)


# Their --batch-limit is our --max-items (docs/serve.md, Limits).
@port(L + "test_api_batch_limit", "known")
def _():
    r, req = translate("items1", json_body=True, q=["Hello", "World"])
    same(r.status_code == 400 and "error" in r.json(), "nmt serve --max-items 1; " + req, r)
    known("exceeds text limit" in r.json()["error"], "nmt serve --max-items 1; " + req, r,
          "400, an error containing 'exceeds text limit'")


@port(L + "test_api_alternatives_limit", "known")
def _():
    lacks_option(["--alternatives-limit", "1"],
                 "alternatives 3 is 400 {\"error\": \"Invalid request: alternatives parameter must be <= 1\"}")


# docs/serve.md: "There are no per-client request limits (--req-limit)": the second request is answered too.
@port(L + "test_api_req_limit_slowdown", "documented")
def _():
    for _ in range(2):
        r, req = translate()
        documented(r.status_code == 200, req, r)


@port(L + "test_api_hourly_and_daily_limits", "documented")
def _():
    r, req = translate()
    documented(r.status_code == 200, req, r)


@port(L + "test_api_req_time_cost", "documented")
def _():
    r, req = translate()
    documented(r.status_code == 200, req, r)


# Theirs trusts X-Forwarded-For for its rate limits; nmt has none to key on it (documented above) and answers.
@port(L + "test_api_trust_forwarded_for", "documented")
def _():
    r, req = translate(headers={"X-Forwarded-For": "10.0.0.1, 10.0.0.2"})
    documented(r.status_code == 200, req, r)


# Theirs bans a client after flood reports (403 "Too many request limits violations"); docs/serve.md: no
# per-client request limits, so no client is banned.
@port(L + "test_api_flood_banned_client", "documented")
def _():
    r, req = translate()
    documented(r.status_code == 200, req, r)


A = "test_api_download_file_access_check.py::"


# Theirs: --api-keys with --under-attack; a keyless /detect is 400. docs/serve.md: /detect needs a key under
# --api-keys, and a missing key is 403.
@port(A + "test_detect_requires_api_key_under_attack", "documented")
def _():
    r = server("keys").post("/detect", data={"q": "Hello"})
    documented(r.status_code == 403, "nmt serve --api-keys FILE; POST /detect form {'q': 'Hello'}", r)


# docs/serve.md: "With --api-keys, the download needs a key too" (403 without one, where theirs says 400).
@port(A + "test_download_file_must_also_require_api_key_under_attack", "documented")
def _():
    s = server("keys")
    r, req = translate_file("keys", api_key="valid-key")
    url = r.json()["translatedFileUrl"]
    path = url[url.index("/download_file"):].split("?")[0]
    d = s.get(path)
    documented(d.status_code == 403, f"nmt serve --api-keys FILE; {req}; GET {path} (no key)", d)
