"""What the serve tests share: start `canitrun serve` on a free loopback port, ask it over
http.client, run the CLI for the same question, stop the server with SIGTERM."""
import http.client
import json
import os
import re
import signal
import subprocess
import time


class Server:
    """`canitrun serve --port 0` on 127.0.0.1; the port is read from its first stderr line."""

    def __init__(self, binary, *flags, env=None):
        self.proc = subprocess.Popen([binary, "serve", "--port", "0", *flags],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env=None if env is None else {**os.environ, **env})
        line = self.proc.stderr.readline().decode()
        m = re.search(r"serving http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            self.proc.kill()
            raise RuntimeError("the server did not start: " + line)
        self.port = int(m.group(1))

    def get(self, target, timeout=10, headers=None):
        """(status, headers, body bytes) of GET target."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.putrequest("GET", target, skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, dict(r.getheaders()), body

    def stop(self, sig=signal.SIGTERM):
        """SIGTERM (or `sig`); returns (exit code, the rest of stderr)."""
        self.proc.send_signal(sig)
        try:
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None, b""
        return self.proc.returncode, err


def cli(binary, args, env=None):
    """(exit code, stdout bytes) of the binary itself."""
    p = subprocess.run([binary, *args], capture_output=True, timeout=60,
                       env=None if env is None else {**os.environ, **env})
    return p.returncode, p.stdout


def validators(schema_dir):
    import jsonschema
    out = {}
    for name in os.listdir(schema_dir):
        with open(os.path.join(schema_dir, name)) as f:
            out[name.removesuffix(".schema.json")] = jsonschema.Draft202012Validator(json.load(f))
    return out


class Failures:
    def __init__(self):
        self.count = 0

    def check(self, ok, what):
        if not ok:
            self.count += 1
            print("FAIL", what)
        return ok
