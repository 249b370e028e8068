"""LibreTranslate's own API tests (libretranslate/tests/test_api/ in LibreTranslate/LibreTranslate), ported
one for one against `nmt serve`: each port names the test it ports, as FILE::FUNCTION.

The ports cover every test_api file of LibreTranslate's main branch (39429cb, July 2026: detect_language,
frontend_settings, get_languages, health, spec, translate) and the test_api files of its other published
versions: the larger suite with client_factory (commit 3fab115, held by the search index but not by the July
2026 snapshot of main: api_keys, frontend, limits, metrics, suggest, translate, translate_file ...), the
metrics and download access checks, the Portuguese variant fallback (main, February 2026, since removed) and
the translation memory tests (commit 15389c6, on no branch). Where two versions hold a test of the same name,
the port follows the larger version, which asserts everything the smaller one does.

They load en,es; we serve the model in $NMT_MODEL (en->de), so es becomes de and their reverse pair es->en
becomes de->en, which an en->de model does not serve. A port takes one of three forms:
  same(...)      nmt answers as LibreTranslate does; a mismatch fails the check.
  documented     nmt differs where docs/serve.md says so; the port checks that documented answer, and its
                 comment cites the passage. A mismatch fails the check.
  known(...)     nmt differs and docs/serve.md does not say so: the port keeps LibreTranslate's expectation,
                 and a mismatch prints "KNOWN DIFFERENCE: ..." with the request and nmt's answer instead of
                 failing, so the suite stays green while the difference is open. A known difference that
                 starts to match prints "now matches" so it can be promoted to same().
Tests that need LibreTranslate's internals (monkeypatched functions, its databases) port their observable
part; an option nmt lacks is a known difference shown by `nmt serve OPTION` being refused.

The ports live in libretranslate_ports/, a module for each LibreTranslate test file or a few related ones
(common.py holds the three forms, the servers and the usual requests); this runner imports them in the order
below, which is the order they run in, and runs every port they register.
"""
import os
import sys

from libretranslate_ports.common import PORTS, counts, current, key_file, known_differences, servers
# Each import registers its module's ports with @port, in this order.
import libretranslate_ports.translate  # noqa: F401  test_api_translate.py
import libretranslate_ports.detect_language  # noqa: F401
import libretranslate_ports.frontend_and_info  # noqa: F401  frontend, health, settings, languages, spec
import libretranslate_ports.files  # noqa: F401  test_api_translate_file.py
import libretranslate_ports.suggest  # noqa: F401
import libretranslate_ports.keys_and_limits  # noqa: F401  api_keys, limits, download access check
import libretranslate_ports.metrics  # noqa: F401  metrics, metrics_security
import libretranslate_ports.variants_and_tm  # noqa: F401  variant fallback, translation memory

try:
    for ref, kind, fn in PORTS:
        current[0] = ref
        before = len(known_differences)
        fn()
        counts[kind] += 1
        print("ok:", ref, "" if kind == "same" else f"({kind}" +
              (f", {len(known_differences) - before} reported)" if kind == "known" else ")"))
    for name, s in servers.items():
        status, err = s.stop()
        if status != 0:
            sys.exit(f"FAILED: server {name} exited {status} on SIGTERM: {err!r}")
finally:
    for s in servers.values():
        s.__exit__()
    os.unlink(key_file.name)
print(f"{len(PORTS)} LibreTranslate tests ported: {counts['same']} answered as LibreTranslate, "
      f"{counts['documented']} as docs/serve.md documents, {counts['known']} with known differences "
      f"({len(known_differences)} reported)")
print("all passed")
