#!/usr/bin/env python3
"""A loopback HTTP server that plays the Hugging Face Hub and the Ollama registry for canitrun's
tests (tests/remote_cli_test.cpp), from files under ROOT that the tests write:

  ROOT/hf/ORG/REPO/...            a repo's files; ROOT/hf/ORG/REPO/.gated makes it gated
                                  (Authorization: Bearer good-token opens it)
  ROOT/ollama/NS/NAME/TAG.json    an Ollama manifest; ROOT/ollama/blobs/sha256-HEX its blobs

Routes:
  GET /api/models/ORG/REPO/tree/REV?recursive=true   the Hub's listing (JSON, sizes, lfs)
  GET /ORG/REPO/resolve/REV/PATH                     302 to /cdn/ORG/REPO/PATH (as the Hub)
  GET /cdn/...                                       the file, with Range support (206)
  GET /v2/NS/NAME/manifests/TAG                      the manifest
  GET /v2/NS/NAME/blobs/DIGEST                       307 to /blobs/DIGEST, served with ranges
  GET /bad/ignore-ranges/P, /bad/wrong-range/P, /bad/truncated/P, /bad/500/P,
      /bad/429-twice/P, /bad/loop, /bad/hang          the misbehaviours canitrun must survive
  GET /__stats                                       {"requests": N, "bytes": B} served so far

Prints "PORT PID" on its first line, then serves until killed. Binds 127.0.0.1 only.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = sys.argv[1]
STATS = {"requests": 0, "bytes": 0}
COUNTERS = {}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with LOCK:
            STATS["bytes"] += len(body)

    def redirect(self, status, location):
        self.send(status, b"", {"Location": location})

    def gated(self, org, repo):
        if os.path.exists(os.path.join(ROOT, "hf", org, repo, ".gated")):
            return self.headers.get("Authorization") != "Bearer good-token"
        return False

    def serve_file(self, path, mode=""):
        if not os.path.isfile(path):
            return self.send(404, b'{"error":"Entry not found"}')
        size = os.path.getsize(path)
        rng = self.headers.get("Range")
        if mode == "ignore-ranges" or not rng:
            with open(path, "rb") as f:
                body = f.read(min(size, 64 << 20))
            return self.send(200, body, {"ETag": '"e-%d"' % size})
        first, last = rng.split("=")[1].split("-")
        first, last = int(first), min(int(last), size - 1)
        with open(path, "rb") as f:
            f.seek(first)
            body = f.read(last - first + 1)
        shown = first + (1 if mode == "wrong-range" else 0)
        headers = {"Content-Range": "bytes %d-%d/%d" % (shown, shown + len(body) - 1, size),
                   "ETag": '"e-%d"' % size, "Accept-Ranges": "bytes"}
        if mode == "truncated":
            self.send_response(206)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        return self.send(206, body, headers)

    def tree(self, org, repo):
        base = os.path.join(ROOT, "hf", org, repo)
        if not os.path.isdir(base):
            return self.send(404, b'{"error":"Repository not found"}')
        if self.gated(org, repo):
            return self.send(401, b'{"error":"Access to model is restricted"}')
        out = []
        for dirpath, _, files in os.walk(base):
            for name in sorted(files):
                if name.startswith("."):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, base)
                size = os.path.getsize(full)
                entry = {"type": "file", "path": rel, "size": size}
                if name.endswith(".gguf"):
                    entry["lfs"] = {"oid": "0" * 64, "size": size, "pointerSize": 134}
                out.append(entry)
        self.send(200, json.dumps(out).encode(), {"Content-Type": "application/json"})

    def do_GET(self):
        path = self.path.split("?")[0]
        parts = [p for p in path.split("/") if p]
        if path == "/__stats":  # not counted itself
            with LOCK:
                body = json.dumps(STATS).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        with LOCK:
            STATS["requests"] += 1
        if parts[:2] == ["api", "models"] and len(parts) >= 6 and parts[4] == "tree":
            return self.tree(parts[2], parts[3])
        if len(parts) >= 5 and parts[2] == "resolve":
            if self.gated(parts[0], parts[1]):
                return self.send(401, b'{"error":"Access to model is restricted"}')
            return self.redirect(302, "/cdn/" + "/".join(parts[:2] + parts[4:]))
        if parts[:1] == ["cdn"]:
            return self.serve_file(os.path.join(ROOT, "hf", *parts[1:]))
        if parts[:1] == ["v2"] and len(parts) == 5 and parts[3] == "manifests":
            manifest = os.path.join(ROOT, "ollama", parts[1], parts[2], parts[4] + ".json")
            if not os.path.isfile(manifest):
                return self.send(404, b'{"errors":[{"code":"MANIFEST_UNKNOWN"}]}')
            with open(manifest, "rb") as f:
                return self.send(200, f.read(), {"Content-Type": "application/json"})
        if parts[:1] == ["v2"] and len(parts) == 5 and parts[3] == "blobs":
            return self.redirect(307, "/blobs/" + parts[4])
        if parts[:1] == ["blobs"] and len(parts) == 2:
            return self.serve_file(os.path.join(ROOT, "ollama", "blobs", parts[1].replace(":", "-")))
        if parts[:1] == ["bad"] and len(parts) >= 2:
            kind, rest = parts[1], os.path.join(ROOT, *parts[2:])
            if kind == "loop":
                return self.redirect(302, "/bad/loop")
            if kind == "hang":
                time.sleep(30)
                return None
            if kind == "500":
                return self.send(500, b"boom")
            if kind == "429-twice":
                with LOCK:
                    n = COUNTERS.get(self.path, 0)
                    COUNTERS[self.path] = n + 1
                if n < 2:
                    return self.send(429, b"slow down", {"Retry-After": "0"})
                return self.serve_file(rest)
            return self.serve_file(rest, kind)
        return self.send(404, b"no such route")


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that hangs up on a misbehaving route is the point of that route


def watch_parent(parent):
    """Exits when the test that started the server is gone (a test that aborts never kills it,
    and an orphaned server would hold the test runner's pipes open)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    print(server.server_address[1], os.getpid(), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
