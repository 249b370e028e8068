"""Hostile requests get errors with LibreTranslate's status codes while another client keeps being served:
malformed JSON, deep JSON, invalid UTF-8, unknown pairs, huge bodies, too many characters, a slowloris."""
import socket
import sys
import threading
import time

from serve_support import SENTENCES, Server, check, cli_translate

nmt = sys.argv[1]
expected = cli_translate(nmt, SENTENCES[:1])[0]

with Server(nmt, "--max-body", "65536", "--max-chars", "2000", "--max-items", "10", "--read-timeout", "2") as s:
    stop = threading.Event()
    served = []

    def steady_client():  # asks all along; every answer must come, and be right
        while not stop.is_set():
            try:
                r = s.post("/translate", json={"q": SENTENCES[0], "source": "en", "target": "de"})
                served.append(r.status_code == 200 and r.json()["translatedText"] == expected)
            except Exception as e:  # the server gone: reported by the check below
                served.append(False)
                print("steady client:", e)
                return

    steady = threading.Thread(target=steady_client)
    steady.start()

    # A slowloris: a request line and one header byte every second, never finished.
    slow = socket.create_connection((s.host, s.port))
    slow.sendall(b"POST /translate HTTP/1.1\r\nHost: x\r\n")

    def error(r, status, words):
        return r.status_code == status and words in r.json().get("error", "")

    json_headers = {"Content-Type": "application/json"}
    r = s.post("/translate", data=b'{"q": "A dog", "source": ', headers=json_headers)
    check(error(r, 400, "not valid JSON"), f"malformed JSON: {r.status_code} {r.text}")
    r = s.post("/translate", data=b"[" * 30000 + b"]" * 30000, headers=json_headers)
    check(error(r, 400, "nested"), f"deep JSON: {r.status_code} {r.text}")
    r = s.post("/translate", data=b'{"q": "\xff\xfe", "source": "en", "target": "de"}', headers=json_headers)
    check(error(r, 400, "not valid JSON"), f"invalid UTF-8 in JSON: {r.status_code} {r.text}")
    r = s.post("/translate", data=b"q=%FF%FE&source=en&target=de",
               headers={"Content-Type": "application/x-www-form-urlencoded"})
    check(error(r, 400, "not valid UTF-8"), f"invalid UTF-8 in a form: {r.status_code} {r.text}")
    r = s.post("/translate", json={"q": "Hallo", "source": "de", "target": "en"})
    check(error(r, 400, "no model translates de to en"), f"unknown pair: {r.status_code} {r.text}")
    r = s.post("/translate", json={"source": "en", "target": "de"})
    check(error(r, 400, "missing q"), f"missing q: {r.status_code} {r.text}")
    r = s.post("/translate", json={"q": {"a": 1}, "source": "en", "target": "de"})
    check(error(r, 400, "must be a string"), f"q an object: {r.status_code} {r.text}")
    r = s.post("/translate", json={"q": "A dog.", "source": "en", "target": "de", "alternatives": -1})
    check(error(r, 400, "alternatives"), f"alternatives -1: {r.status_code} {r.text}")
    r = s.post("/translate", data=b"x" * 200000, headers=json_headers)
    check(error(r, 413, "--max-body"), f"huge body: {r.status_code} {r.text}")
    r = s.post("/translate", json={"q": "a " * 1500, "source": "en", "target": "de"})
    check(error(r, 400, "exceeds text limit (2000)"), f"too many characters: 400 as LibreTranslate: {r.status_code} {r.text}")
    r = s.post("/translate", json={"q": "a " * 300, "source": "en", "target": "de", "alternatives": 3})
    check(error(r, 400, "alternatives"), f"characters x (1 + alternatives) over the limit: {r.status_code} {r.text}")
    r = s.post("/translate", json={"q": [""] * 11, "source": "en", "target": "de"})
    check(error(r, 400, "--max-items"), f"11 empty texts over --max-items 10: {r.status_code} {r.text}")
    r = s.post("/translate_file", files={"file": ("big.html", b"<p>" + b"a " * 1500 + b"</p>")},
               data={"source": "en", "target": "de"})
    check(error(r, 400, "exceeds text limit"), f"a document over --max-chars: {r.status_code} {r.text}")
    r = s.post("/translate_file", files={"file": ("bad.docx", b"PK\x03\x04 not a zip")},
               data={"source": "en", "target": "de"})
    check(r.status_code in (400, 500) and "error" in r.json(), f"a broken DOCX: an error: {r.status_code} {r.text}")
    r = s.post("/translate", data=b"--x\r\nbroken", headers={"Content-Type": "multipart/form-data; boundary=x"})
    check(r.status_code == 400 and "error" in r.json(), f"a broken multipart form: 400: {r.status_code} {r.text}")
    for raw in [b"GARBAGE\r\n\r\n", b"POST /translate HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                b"POST /translate HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n"]:
        with socket.create_connection((s.host, s.port), timeout=10) as c:
            c.sendall(raw)
            try:
                c.recv(4096)
            except (ConnectionResetError, socket.timeout):
                pass
    check(s.proc.poll() is None, "malformed requests: the server lives")
    r = s.post("/v1/translate?source=en&target=de&sampling.top_k=5", data='{"text": "A dog."}')
    check(error(r, 400, "unknown parameter"), f"/v1 sampling refused: {r.status_code} {r.text}")
    r = s.get("/nothing")
    check(error(r, 404, "no such endpoint"), f"unknown path: {r.status_code} {r.text}")

    # The slowloris is cut after --read-timeout of silence; the others were served meanwhile.
    slow.settimeout(10)
    start = time.time()
    try:
        while slow.recv(4096):
            pass
    except (ConnectionResetError, socket.timeout):
        pass
    check(time.time() - start < 9, f"slowloris cut after the read timeout ({time.time() - start:.1f} s)")
    stop.set()
    steady.join()
    check(len(served) > 0 and all(served), f"the steady client served throughout: {len(served)} answers")
    status, err = s.stop()
    check(status == 0 and "Segmentation" not in err, f"no crash: exit {status}")
print("all passed")
