#!/usr/bin/env python3
"""Remote models through the server and MCP, with --allow-remote, from the loopback Hub
(tests/support/hub_server.py on 127.0.0.1, no network): the document for hf:ORG/REPO and for
one of its files equals the CLI's for the same question under the same environment, and
validates; a second remote question in the same process answers too.

Usage: serve_remote_test.py CANITRUN_BINARY SCHEMA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse

from serve_support import Failures, Server, cli, validators

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
from small_gguf import write_small_llama  # noqa: E402

binary, schema_dir = sys.argv[1:3]
schemas = validators(schema_dir)
f = Failures()
work = tempfile.TemporaryDirectory()
hub_root = os.path.join(work.name, "hub")
os.makedirs(os.path.join(hub_root, "hf", "org", "repo"))
write_small_llama(os.path.join(hub_root, "hf", "org", "repo", "small-Q4_K_M.gguf"))
hub = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "..", "support",
                                                     "hub_server.py"), hub_root],
                       stdout=subprocess.PIPE, text=True)
hub_port = hub.stdout.readline().split()[0]
ENV = {"HF_ENDPOINT": "http://127.0.0.1:" + hub_port, "XDG_CACHE_HOME": work.name + "/cache",
       "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1", "HF_TOKEN": "", "HOME": work.name}

QUESTIONS = [
    ("hf:org/repo", {}, ["hf:org/repo", "--json"], "hf-repo"),
    ("hf:org/repo:Q4_K_M", {"gpu": "RTX 4090", "ctx": "16k"},
     ["hf:org/repo:Q4_K_M", "--gpu", "RTX 4090", "--ctx", "16k", "--json"], "gguf-file"),
]
server = Server(binary, "--quiet", "--allow-remote", env=ENV)
try:
    for model, query, args, schema in QUESTIONS:
        target = "/api/v1/models/" + model + ("?" + urllib.parse.urlencode(query) if query else "")
        status, _, body = server.get(target, timeout=60)
        code, expected = cli(binary, args, env=ENV)
        f.check(code == 0 and status == 200, f"{target}: status {status}, CLI exit {code}")
        f.check(body == expected, f"{target}: the body is not the CLI's stdout")
        errors = list(schemas[schema].iter_errors(json.loads(body)))
        f.check(not errors, f"{target}: {schema} schema: {errors[:1]}")
    # --timeout's deadline is per question (remote_flags.hpp); waiting out its 30 s to show a
    # process-wide one failing is left out to keep the test short.
    status, _, _ = server.get("/api/v1/models/hf:org/repo:Q4_K_M?ctx=8k", timeout=60)
    f.check(status == 200, "a later remote question answers too")
finally:
    server.stop()

proc = subprocess.Popen([binary, "mcp", "--allow-remote"], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, env={**os.environ, **ENV})
call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "read_model_file", "arguments": {"source": "hf:org/repo:Q4_K_M",
                                                            "gpu": "RTX 4090"}}}
out, _ = proc.communicate((json.dumps(call) + "\n").encode(), timeout=60)
result = json.loads(out.splitlines()[0])["result"]
code, expected = cli(binary, ["hf:org/repo:Q4_K_M", "--gpu", "RTX 4090", "--json"], env=ENV)
f.check(not result["isError"] and result["content"][0]["text"].encode() == expected,
        "mcp read_model_file: the CLI's document")
hub.terminate()
hub.wait(timeout=10)
sys.exit(1 if f.count else 0)
