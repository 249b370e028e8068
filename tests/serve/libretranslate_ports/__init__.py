"""Ports of LibreTranslate's API tests, run by tests/serve/libretranslate_tests_check.py."""
