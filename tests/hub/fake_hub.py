#!/usr/bin/env python3
"""A stand-in for the Hugging Face hub on 127.0.0.1, for tests: the model API, resolve URLs and a second
server for LFS files, with faults chosen by the repository's name.

Repositories are directories REPOS/ORG/NAME/. The hub answers, as huggingface.co does:
  GET /api/models/ORG/NAME/revision/REV?blobs=true  -> {"id", "sha", "siblings": [{"rfilename", "size",
      "blobId", "lfs": {"sha256", "size", "pointerSize"}}]}
  GET /ORG/NAME/resolve/REV/PATH  -> the file (X-Repo-Commit, ETag), or for LFS files (*.safetensors, *.bin,
      *.spm, *.h5, *.ot) a 302 to the LFS server (X-Linked-Etag, X-Linked-Size), which honours Range.
  GET {lfs}/files/NAME  -> REPOS/_files/NAME, a package by URL (Range honoured; faults by NAME as above)
A Remote Settings server on the LFS server's port, for model listings:
  GET {lfs}/v1/  -> {"capabilities": {"attachments": {"base_url": "{lfs}/attachments/"}}}
  GET {lfs}/v1/buckets/main/collections/translations-models/records  -> REPOS/_remote_settings/records.json
  GET {lfs}/attachments/LOCATION  -> REPOS/_remote_settings/attachments/LOCATION (Range honoured)
  GET /_log  -> every request so far: [{"server", "path", "range", "authorization", "status"}]
Faults, by a word in NAME: "private" needs "Authorization: Bearer secret-token" (401 otherwise), "flaky"
answers its first API request and first weights request 500 (503), "broken" every API request 500, "cut" closes the first weights download
half way, "badsha" states a wrong sha256 for the weights, "slow" stalls the first weights download.

Usage: fake_hub.py REPOS [--port-file FILE] [--lifetime SECONDS]   (prints {"hub": PORT, "lfs": PORT})
"""
import argparse
import hashlib
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse

TOKEN = "secret-token"
LFS_SUFFIXES = (".safetensors", ".bin", ".spm", ".h5", ".ot")
WEIGHTS_SUFFIXES = (".safetensors", ".bin")
STALL_SECONDS = 3


class State:
    def __init__(self, repos):
        self.repos = repos
        self.lock = threading.Lock()
        self.log = []
        self.seen = {}  # (fault, key) -> times
        self.lfs_port = 0

    def first_time(self, key):
        with self.lock:
            n = self.seen.get(key, 0)
            self.seen[key] = n + 1
            return n == 0

    def record(self, entry):
        with self.lock:
            self.log.append(entry)


def repo_files(path):
    return sorted(f for f in os.listdir(path) if os.path.isfile(os.path.join(path, f)))


def file_facts(path):
    data = open(path, "rb").read()
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "blob": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()}


def commit_of(repo_dir):
    h = hashlib.sha1()
    for name in repo_files(repo_dir):
        h.update(name.encode() + file_facts(os.path.join(repo_dir, name))["sha256"].encode())
    return h.hexdigest()


def make_handler(state, server_name):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body=b"", headers=()):
            # Noted before the client can read the answer: a client that gives up at once exits, and the
            # check reads the log, before a note written after the body would land.
            self.note(status)
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def note(self, status):
            state.record({"server": server_name, "path": self.path, "status": status,
                          "range": self.headers.get("Range"),
                          "authorization": self.headers.get("Authorization")})

        def error(self, status, message):
            self.send(status, json.dumps({"error": message}).encode(), [("Content-Type", "application/json"),
                                                                        ("X-Error-Message", message)])

        def repo_dir(self, org, name):
            path = os.path.join(state.repos, org, name)
            return path if os.path.isdir(path) and "/" not in org + name and ".." not in (org, name) else None

        def authorized(self, name):
            return "private" not in name or self.headers.get("Authorization") == "Bearer " + TOKEN

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            parts = [urllib.parse.unquote(p) for p in url.path.split("/")[1:]]
            if server_name == "lfs":
                return self.lfs(parts)
            if parts == ["_log"]:
                return self.send(200, json.dumps(state.log).encode(), [("Content-Type", "application/json")])
            if len(parts) == 6 and parts[:2] == ["api", "models"] and parts[4] == "revision":
                return self.api(parts[2], parts[3], parts[5])
            if len(parts) == 5 and parts[2] == "resolve":
                return self.resolve(parts[0], parts[1], parts[3], parts[4])
            self.error(404, "Not Found")

        def api(self, org, name, rev):
            repo = self.repo_dir(org, name)
            if repo is None:
                return self.error(404, "Repository not found")
            if not self.authorized(name):
                return self.error(401, "Invalid credentials in Authorization header")
            if "broken" in name:
                return self.error(500, "Internal Error")
            if "flaky" in name and state.first_time(("api", name)):
                return self.error(500, "Internal Error")
            commit = commit_of(repo)
            if rev not in ("main", commit):
                return self.error(404, "Revision Not Found")
            siblings = []
            for f in repo_files(repo):
                facts = file_facts(os.path.join(repo, f))
                entry = {"rfilename": f, "size": facts["size"], "blobId": facts["blob"]}
                if f.endswith(LFS_SUFFIXES):
                    sha = facts["sha256"]
                    if "badsha" in name and f.endswith(WEIGHTS_SUFFIXES):
                        sha = "0" * 64
                    entry["lfs"] = {"sha256": sha, "size": facts["size"], "pointerSize": 134}
                    entry["blobId"] = hashlib.sha1(sha.encode()).hexdigest()
                siblings.append(entry)
            body = {"_id": commit[:24], "id": org + "/" + name, "modelId": org + "/" + name, "sha": commit,
                    "private": "private" in name, "siblings": siblings}
            self.send(200, json.dumps(body).encode(), [("Content-Type", "application/json")])

        def resolve(self, org, name, rev, path):
            repo = self.repo_dir(org, name)
            if repo is None or not os.path.isfile(os.path.join(repo, path)):
                return self.error(404, "Entry not found")
            if not self.authorized(name):
                return self.error(401, "Invalid credentials in Authorization header")
            commit = commit_of(repo)
            if rev not in ("main", commit):
                return self.error(404, "Revision Not Found")
            if "flaky" in name and path.endswith(WEIGHTS_SUFFIXES) and state.first_time(("resolve", name)):
                return self.error(503, "Service Unavailable")
            facts = file_facts(os.path.join(repo, path))
            headers = [("X-Repo-Commit", commit)]
            if path.endswith(LFS_SUFFIXES):
                where = "http://127.0.0.1:%d/lfs/%s/%s/%s?X-Amz-Signature=fake" % (state.lfs_port, org, name, path)
                headers += [("Location", where), ("X-Linked-Etag", '"%s"' % facts["sha256"]),
                            ("X-Linked-Size", str(facts["size"])), ("ETag", '"%s"' % facts["blob"])]
                return self.send(302, b"", headers)
            data = open(os.path.join(repo, path), "rb").read()
            self.send(200, data, headers + [("ETag", '"%s"' % facts["blob"])])

        def remote_settings(self, parts):
            root = os.path.join(state.repos, "_remote_settings")
            if parts == ["v1", ""]:
                base = "http://127.0.0.1:%d/attachments/" % state.lfs_port
                body = {"project_name": "fake", "capabilities": {"attachments": {"base_url": base}}}
                return self.send(200, json.dumps(body).encode(), [("Content-Type", "application/json")])
            if parts == ["v1", "buckets", "main", "collections", "translations-models", "records"]:
                data = open(os.path.join(root, "records.json"), "rb").read()
                return self.send(200, data, [("Content-Type", "application/json")])
            return self.error(404, "Not Found")

        def lfs(self, parts):
            if parts and parts[0] == "v1":
                return self.remote_settings(parts)
            if len(parts) > 1 and parts[0] == "attachments" and all(p not in ("", ".", "..") for p in parts[1:]):
                repo, name, path = os.path.join(state.repos, "_remote_settings", "attachments"), parts[-1], \
                    os.path.join(*parts[1:])
            elif len(parts) == 2 and parts[0] == "files" and "/" not in parts[1] and parts[1] not in (".", ".."):
                repo, name, path = os.path.join(state.repos, "_files"), parts[1], parts[1]
            elif len(parts) == 4 and parts[0] == "lfs":
                repo, name, path = self.repo_dir(parts[1], parts[2]), parts[2], parts[3]
            else:
                return self.error(404, "Not Found")
            if repo is None or not os.path.isfile(os.path.join(repo, path)):
                return self.error(404, "Not Found")
            data = open(os.path.join(repo, path), "rb").read()
            start = 0
            wanted = self.headers.get("Range")
            if wanted and wanted.startswith("bytes=") and wanted.endswith("-"):
                start = int(wanted[len("bytes="):-1])
                if start >= len(data):
                    return self.send(416, b"", [("Content-Range", "bytes */%d" % len(data))])
            body = data[start:]
            status = 206 if start else 200
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            if start:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
            self.end_headers()
            self.note(status)
            weights = path.endswith(WEIGHTS_SUFFIXES + (".zip",))
            if weights and "cut" in name and state.first_time(("cut", name)):
                self.wfile.write(body[:len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            if weights and "slow" in name and state.first_time(("slow", name)):
                self.wfile.write(body[:100])
                self.wfile.flush()
                time.sleep(STALL_SECONDS)
                self.close_connection = True
                return
            self.wfile.write(body)

    return Handler


def start(repos):
    """Starts both servers on free loopback ports in daemon threads: (hub_port, lfs_port, state, servers)."""
    state = State(repos)
    servers = []
    for name in ("hub", "lfs"):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state, name))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    state.lfs_port = servers[1].server_address[1]
    return servers[0].server_address[1], state.lfs_port, state, servers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("repos")
    parser.add_argument("--port-file")
    parser.add_argument("--lifetime", type=float, default=120, help="exit after this many seconds")
    args = parser.parse_args()
    hub, lfs, _, _ = start(args.repos)
    ports = json.dumps({"hub": hub, "lfs": lfs})
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(ports + "\n")
        os.replace(args.port_file + ".tmp", args.port_file)
    print(ports, flush=True)
    time.sleep(args.lifetime)


if __name__ == "__main__":
    sys.exit(main())
