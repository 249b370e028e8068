"""Ports of LibreTranslate's test_api_metrics.py and test_api_metrics_security.py
(see tests/serve/libretranslate_tests_check.py for the three forms of a port)."""
from libretranslate_ports.common import (describe, known, lacks_option, port, refused_option, same_status, server)


M = "test_api_metrics.py::"


@port(M + "test_api_metrics_disabled_by_default", "same")
def _():
    same_status("GET", "/metrics", 404)


@port(M + "test_api_metrics_auth_token", "known")
def _():
    lacks_option(["--metrics", "--metrics-auth-token", "test-token"], "GET /metrics with the bearer token is 200")


MS = "test_api_metrics_security.py::"


def metrics_known(headers, expected):
    r = server().get("/metrics", headers=headers)
    rc, err = refused_option("--metrics")
    known(False, f"GET /metrics headers {headers}", f"{describe(r)}; nmt serve --metrics: exit {rc}: {err}",
          expected + " (with --metrics)")


@port(MS + "test_metrics_denied_without_auth_token_configured", "known")
def _():
    metrics_known({}, "401")


@port(MS + "test_metrics_unauthorized_with_invalid_bearer", "known")
def _():
    metrics_known({"Authorization": "Bearer wrong-token"}, "401")


@port(MS + "test_metrics_unauthorized_without_bearer", "known")
def _():
    metrics_known({}, "401")


@port(MS + "test_metrics_authorized_with_valid_bearer", "known")
def _():
    metrics_known({"Authorization": "Bearer test-secret-token"}, "200")


@port(MS + "test_metrics_output_has_no_api_key_label", "known")
def _():
    metrics_known({"Authorization": "Bearer test-secret-token"}, "200 without api_key= labels")


@port(MS + "test_metrics_output_has_no_request_ip_label", "known")
def _():
    metrics_known({"Authorization": "Bearer test-secret-token"}, "200 without request_ip= labels")
