"""Clients that drip a request a byte at a time cannot hold the server: with every connection thread taken
by 64 such clients, each sending one byte (of a header or of the body) every 2 s, a whole request must
arrive within --receive-timeout, so the drippers are cut and an honest client is answered within that
bound."""
import socket
import sys
import threading
import time

from serve_support import SENTENCES, Server, check

nmt = sys.argv[1]
DEADLINE = 3  # --receive-timeout
DRIPPERS = 64

with Server(nmt, "--receive-timeout", str(DEADLINE), "--read-timeout", "5", "--max-connections", "64") as s:
    drippers = []
    for i in range(DRIPPERS):
        c = socket.create_connection((s.host, s.port))
        if i % 2:  # drips the body
            c.sendall(b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 1000\r\n\r\n{")
        else:  # drips a header that never ends
            c.sendall(b"POST /translate HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        c.setblocking(False)
        drippers.append(c)
    time.sleep(0.5)  # every connection thread now reads a dripper's body

    start = time.time()
    answer = {}

    def honest():
        answer["r"] = s.post("/translate", json={"q": SENTENCES[0], "source": "en", "target": "de"})
        answer["seconds"] = time.time() - start

    client = threading.Thread(target=honest, daemon=True)
    client.start()
    open_drippers = set(range(DRIPPERS))
    while time.time() - start < 4 * DEADLINE + 5 and (client.is_alive() or open_drippers):
        for i in list(open_drippers):
            try:
                drippers[i].send(b"a")
                if drippers[i].recv(4096) == b"":
                    open_drippers.discard(i)
            except BlockingIOError:
                pass
            except OSError:  # reset: the server cut it
                open_drippers.discard(i)
        client.join(timeout=2)  # one byte every 2 s
    waited = time.time() - start
    r, answered = answer.get("r"), answer.get("seconds", waited)
    check(r is not None and r.status_code == 200, f"the honest client answered beside 64 drippers ({answered:.1f} s)")
    check(answered < DEADLINE + 4, f"... within the receive deadline and a translation: {answered:.1f} s")
    check(not open_drippers, f"every dripper cut: {len(open_drippers)} still open after {waited:.1f} s")
    for c in drippers:
        c.close()
    status, err = s.stop()
    check(status == 0, f"exit 0 after the drippers ({status})")
print("all passed")
