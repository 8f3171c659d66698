#!/usr/bin/env python3
"""`canitrun mcp` as an MCP client drives it: initialize, the initialized notification,
tools/list, then every tool called, each result's text compared byte for byte with what the
CLI prints for the same question (the test writes both forms) and validated against its
schema; then the protocol's errors (a parse error, an unknown method, an unknown tool, a bad
argument, a line past 1 MiB), and a clean exit at the end of input.

Usage: mcp_test.py CANITRUN_BINARY SCHEMA_DIR
"""
import json
import subprocess
import sys

from serve_support import Failures, cli, validators

binary, schema_dir = sys.argv[1:3]
schemas = validators(schema_dir)
f = Failures()

proc = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)
next_id = 0


def send(message):
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def request(method, params=None):
    global next_id
    next_id += 1
    message = {"jsonrpc": "2.0", "id": next_id, "method": method}
    if params is not None:
        message["params"] = params
    send(message)
    reply = json.loads(proc.stdout.readline())
    f.check(reply.get("id") == next_id and reply.get("jsonrpc") == "2.0", f"{method}: the id")
    return reply


init = request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "mcp_test", "version": "1"}})
result = init["result"]
f.check(result["protocolVersion"] == "2025-06-18", "initialize: the protocol version")
f.check("tools" in result["capabilities"], "initialize: offers tools")
f.check(result["serverInfo"]["name"] == "canitrun", "initialize: the server's name")
send({"jsonrpc": "2.0", "method": "notifications/initialized"})  # no reply expected

tools = {t["name"]: t for t in request("tools/list")["result"]["tools"]}
EXPECTED_TOOLS = {"can_it_run", "what_fits", "compare_models", "gpus_for_model",
                  "read_model_file", "list_models", "list_gpus"}
f.check(set(tools) == EXPECTED_TOOLS, f"tools/list: {sorted(tools)}")
for name, t in tools.items():
    f.check(t["inputSchema"]["type"] == "object" and t["description"], f"{name}: a schema")

Q35 = "qwen3.5-35b-a3b"
CALLS = [
    ("can_it_run", {"model": Q35}, [Q35, "--json"], "model-report"),
    ("can_it_run", {"model": Q35, "gpu": "RTX 4090", "ctx": "32k", "quant": "Q4_K_M"},
     [Q35, "--gpu", "RTX 4090", "--ctx", "32k", "--quant", "Q4_K_M", "--json"], "model-report"),
    ("can_it_run", {"model": "llama-3.1-8b", "gpu": "RTX 3060", "ctx": 131072},
     ["llama-3.1-8b", "--gpu", "RTX 3060", "--ctx", "131072", "--json"], "model-report"),
    ("what_fits", {"gpu": "RTX 4090"}, ["fit", "--gpu", "RTX 4090", "--json"], "fit"),
    ("compare_models", {"models": f"{Q35},gpt-oss-20b"},
     ["compare", Q35, "gpt-oss-20b", "--json"], "compare"),
    ("gpus_for_model", {"model": "llama-3.1-8b", "quant": "Q8_0"},
     ["gpus", "llama-3.1-8b", "--quant", "Q8_0", "--json"], "gpus-for-model"),
    ("list_models", {"family": "llama"}, ["models", "--family", "llama", "--json"], "models"),
    ("list_gpus", {"vendor": "apple"}, ["gpu-list", "--vendor", "apple", "--json"], "gpu-list"),
    ("read_model_file", {"source": Q35, "ctx": "16k"}, [Q35, "--ctx", "16k", "--json"],
     "model-report"),
]
called = set()
for name, arguments, args, schema in CALLS:
    reply = request("tools/call", {"name": name, "arguments": arguments})
    called.add(name)
    res = reply["result"]
    code, expected = cli(binary, args)
    f.check(not res["isError"], f"{name} {arguments}: not an error")
    text = res["content"][0]["text"]
    f.check(res["content"][0]["type"] == "text", f"{name}: a text content")
    f.check(text.encode() == expected,
            f"{name} {arguments}: the text is not `canitrun {' '.join(args)}`'s stdout")
    errors = list(schemas[schema].iter_errors(json.loads(text)))
    f.check(not errors, f"{name}: {schema} schema: {errors[:1]}")
f.check(called == EXPECTED_TOOLS, "every tool was called")

# Errors: a tool's bad question is a result with isError (the CLI's message); the protocol's
# are JSON-RPC errors with the spec's codes.
res = request("tools/call", {"name": "can_it_run",
                             "arguments": {"model": Q35, "quant": "Q9_X"}})["result"]
f.check(res["isError"] and "Q9_X" in res["content"][0]["text"], "a bad quant: isError")
res = request("tools/call", {"name": "can_it_run", "arguments": {"model": "/etc/passwd"}})
f.check(res["result"]["isError"], "a path is not a model")
res = request("tools/call", {"name": "read_model_file", "arguments": {"source": "--data=/"}})
f.check(res["result"]["isError"], "a source may not be a flag")
res = request("tools/call", {"name": "read_model_file",
                             "arguments": {"source": "hf:unsloth/Qwen3-8B-GGUF"}})
f.check(res["result"]["isError"] and "allow-remote" in res["result"]["content"][0]["text"],
        "remote models need --allow-remote")
f.check(request("tools/call", {"name": "rm_rf"})["error"]["code"] == -32602, "unknown tool")
f.check(request("resources/list")["error"]["code"] == -32601, "unknown method")
f.check(request("ping")["result"] == {}, "ping")
proc.stdin.write(b"{not json\n")
proc.stdin.flush()
f.check(json.loads(proc.stdout.readline())["error"]["code"] == -32700, "a parse error")
proc.stdin.write(b"[" * 2_000_000 + b"\n")
proc.stdin.flush()
f.check(json.loads(proc.stdout.readline())["error"]["code"] == -32700, "a line past 1 MiB")
f.check(request("ping")["result"] == {}, "still answering after the long line")

proc.stdin.close()
code = proc.wait(timeout=10)
f.check(code == 0, f"end of input: exit 0 (got {code})")
f.check(proc.stderr.read() == b"", "nothing on stderr")
sys.exit(1 if f.count else 0)
