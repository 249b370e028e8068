"""API keys (403 without a good one), CORS only with --cors-origin, --max-queue (429), --request-timeout
(503), and SIGTERM: the request in flight is answered, then the server exits 0."""
import os
import sys
import tempfile
import threading
import time

from serve_support import SENTENCES, Server, check, cli_translate

nmt = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    keys = os.path.join(tmp, "keys")
    with open(keys, "w") as f:
        f.write("# clients\nsecret-1\n\nsecret-2\n")
    with Server(nmt, "--api-keys", keys, "--cors-origin", "https://example.org") as s:
        ask = {"q": SENTENCES[0], "source": "en", "target": "de"}
        r = s.post("/translate", json=ask)
        check(r.status_code == 403 and r.json() == {"error": "Invalid API key"}, f"no key: {r.status_code} {r.text}")
        r = s.post("/translate", json={**ask, "api_key": "wrong"})
        check(r.status_code == 403, f"wrong key: {r.status_code}")
        r = s.post("/translate", json={**ask, "api_key": "secret-2"})
        check(r.status_code == 200, f"good key: {r.status_code} {r.text}")
        r = s.post("/v1/translate?source=en&target=de", data='{"text": "A dog."}')
        check(r.status_code == 403, f"/v1 without key: {r.status_code}")
        check(r.headers.get("Access-Control-Allow-Origin") == "https://example.org", "CORS header with --cors-origin")
        r = s.get("/languages")
        check(r.status_code == 200, "/languages needs no key")
        r = s.post("/translate_file", files={"file": ("a.txt", b"A dog.\n")},
                   data={"source": "en", "target": "de", "api_key": "secret-1"})
        url = r.json()["translatedFileUrl"]
        bare = url.split("?")[0]
        r = s.get(bare[len(s.url):])
        check(r.status_code == 403, f"/download_file without the key: {r.status_code} {r.text}")
        r = s.get(bare[len(s.url):] + "?api_key=wrong")
        check(r.status_code == 403, f"/download_file with a wrong key: {r.status_code}")
        r = s.get(url[len(s.url):])
        check(r.status_code == 200 and r.content.strip() != b"", f"/download_file by its URL (the key in it): {r.status_code}")
        s.stop()

# A batch window of 1 s: the first request waits in the queue that long, so the next finds it full, and a
# request timeout of 1 s passes before the translator starts.
with Server(nmt, "--batch-wait", "1000", "--max-queue", "1", "--request-timeout", "1") as s:
    first = {}
    waiting = threading.Thread(target=lambda: first.update(r=s.post("/translate", json={
        "q": SENTENCES[0], "source": "en", "target": "de"})))
    waiting.start()
    time.sleep(0.3)
    r = s.post("/translate", json={"q": SENTENCES[1], "source": "en", "target": "de"})
    check(r.status_code == 429 and "--max-queue" in r.json()["error"], f"queue full: {r.status_code} {r.text}")
    waiting.join()
    check(first["r"].status_code == 503 and "--request-timeout" in first["r"].json()["error"],
          f"past the request timeout: {first['r'].status_code} {first['r'].text}")
    s.stop()


def sigterm_during(server, send, what):
    """Sends `send()` on a thread and SIGTERMs the server 0.5 s later, while the request waits in the
    batch window; returns (the answer or None, the server's exit status, its stderr)."""
    answer = {}

    def request():
        try:
            answer["r"] = send()
        except Exception as e:
            print(f"{what} in flight:", e)

    client = threading.Thread(target=request)
    client.start()
    time.sleep(0.5)
    status, err = server.stop()
    client.join()
    return answer.get("r"), status, err


# A batch window of 1 s: the request is in flight (waiting in the queue) when SIGTERM comes at 0.5 s.
with Server(nmt, "--batch-wait", "1000") as s:
    text = "\n".join(SENTENCES * 2)
    expected = cli_translate(nmt, SENTENCES * 2)
    r, status, err = sigterm_during(s, lambda: s.post("/translate", json={"q": text, "source": "en", "target": "de"}),
                                    "the request")
    check(r is not None and r.status_code == 200 and r.json()["translatedText"].split("\n") == expected,
          f"SIGTERM: the request in flight answered in full: {r and r.status_code} {r and r.text[:200]}")
    check(status == 0 and "SIGTERM" in err, f"SIGTERM: exit 0 ({status}, {err!r})")
# A file translation in flight when SIGTERM comes is refused (503), not answered with a URL that dies with
# the server; --cors-origin '' sends no CORS header.
with Server(nmt, "--batch-wait", "1000", "--cors-origin", "") as s:
    r = s.get("/languages")
    check("Access-Control-Allow-Origin" not in r.headers, "no CORS header with --cors-origin ''")
    r, status, err = sigterm_during(
        s, lambda: s.post("/translate_file", files={"file": ("a.txt", SENTENCES[0].encode() + b"\n")},
                          data={"source": "en", "target": "de"}), "the file request")
    check(r is not None and r.status_code == 503 and "shutting down" in r.json()["error"],
          f"SIGTERM: a file translation in flight: 503: {r and r.status_code} {r and r.text}")
    check(status == 0, f"SIGTERM: exit 0 ({status})")
print("all passed")
