#!/usr/bin/env python3
"""A loopback HTTP server that plays the Hugging Face Hub and the Ollama registry for canitrun's
tests (tests/remote_cli_test.cpp), from files under ROOT that the tests write:

  ROOT/hf/ORG/REPO/...            a repo's files; ROOT/hf/ORG/REPO/.gated makes it gated
                                  (Authorization: Bearer good-token opens it)
  ROOT/ollama/NS/NAME/TAG.json    an Ollama manifest; ROOT/ollama/blobs/sha256-HEX its blobs

Routes:
  GET /api/models/ORG/REPO/tree/REV?recursive=true   the Hub's listing (JSON, sizes, lfs); a
                                                     file ROOT/hf/ORG/REPO/.tree is served as is
  GET /ORG/REPO/resolve/REV/PATH                     302 to /cdn/ORG/REPO/PATH (as the Hub); a
                                                     .redirect file holding "other" or "plain"
                                                     sends it to that listener instead
  GET /cdn/...                                       the file, with Range support (206)
  GET /v2/NS/NAME/manifests/TAG                      the manifest
  GET /v2/NS/NAME/blobs/DIGEST                       307 to /blobs/DIGEST, served with ranges
  GET /bad/ignore-ranges/P, /bad/wrong-range/P, /bad/truncated/P, /bad/500/P,
      /bad/429-twice/P, /bad/loop, /bad/hang          the misbehaviours canitrun must survive
  GET /bad/trickle/P        a 206 that sends 2 bytes every 1.5 s, for as long as it is read
  GET /bad/retry-storm/P    429 with Retry-After: 30, every time
  GET /bad/redirect-other/P 302 to the "other" listener's /cdn/P
  GET /__stats              {"requests": N, "bytes": B, "auth": [listener names that were sent
                            an Authorization header, one per request], "listeners": {name: N}}

Three listeners, one handler: "main" on 127.0.0.1 (TLS with `--tls CERT KEY`), "other" on
127.0.0.2 (another host name: a redirect there leaves the endpoint's origin) and "plain" on
127.0.0.1 without TLS (another origin on the same host). Prints "PORT PID OTHER PLAIN" on its
first line, then serves until killed. Binds loopback addresses only.
"""
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = sys.argv[1]
STATS = {"requests": 0, "bytes": 0, "auth": [], "listeners": {}}
PORTS = {}
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

    def elsewhere(self, listener, path):
        host = "127.0.0.2" if listener == "other" else "127.0.0.1"
        return "http://%s:%d%s" % (host, PORTS[listener], path)

    def trickle(self):
        self.send_response(206)
        self.send_header("Content-Range", "bytes 0-1048575/1073741824")
        self.send_header("Content-Length", "1048576")
        self.end_headers()
        try:
            for _ in range(400):  # 10 minutes at most
                self.wfile.write(b"GG")
                self.wfile.flush()
                time.sleep(1.5)
        except OSError:
            pass
        self.close_connection = True

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
        if os.path.isfile(os.path.join(base, ".tree")):
            with open(os.path.join(base, ".tree"), "rb") as f:
                return self.send(200, f.read(), {"Content-Type": "application/json"})
        # As the Hub: a gated repo lists its files to anyone; only the downloads need a token.
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
        path = urllib.parse.unquote(self.path.split("?")[0])
        parts = [p for p in path.split("/") if p]
        listener = self.server.name
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
            STATS["listeners"][listener] = STATS["listeners"].get(listener, 0) + 1
            if "Authorization" in self.headers:
                STATS["auth"].append(listener)
        if parts[:2] == ["api", "models"] and len(parts) >= 6 and parts[4] == "tree":
            return self.tree(parts[2], parts[3])
        if len(parts) >= 5 and parts[2] == "resolve":
            if self.gated(parts[0], parts[1]):
                return self.send(401, b'{"error":"Access to model is restricted"}')
            cdn = "/cdn/" + urllib.parse.quote("/".join(parts[:2] + parts[4:]))
            where = os.path.join(ROOT, "hf", parts[0], parts[1], ".redirect")
            if os.path.isfile(where):
                with open(where) as f:
                    cdn = self.elsewhere(f.read().strip(), cdn)
            return self.redirect(302, cdn)
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
            if kind == "trickle":
                return self.trickle()
            if kind == "retry-storm":
                return self.send(429, b"slow down", {"Retry-After": "30"})
            if kind == "redirect-other":
                return self.redirect(302, self.elsewhere("other", "/bad/x/" + "/".join(parts[2:])))
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


def listen(name, host, tls=None):
    server = Server((host, 0), Handler)
    server.name = name
    server.daemon_threads = True
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls[0], tls[1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    PORTS[name] = server.server_address[1]
    return server


def main():
    tls = sys.argv[3:5] if len(sys.argv) >= 5 and sys.argv[2] == "--tls" else None
    servers = [listen("main", "127.0.0.1", tls), listen("other", "127.0.0.2"),
               listen("plain", "127.0.0.1")]
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    for s in servers[1:]:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    print(PORTS["main"], os.getpid(), PORTS["other"], PORTS["plain"], flush=True)
    servers[0].serve_forever()


if __name__ == "__main__":
    main()
