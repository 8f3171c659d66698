#!/usr/bin/env python3
"""The JSON API answers as the command line does: for 20 questions, the body of each
/api/v1/ endpoint is byte for byte what `canitrun ARGS --json` prints for the same flags (the
test writes both forms of each question itself), the status follows the CLI's exit code, and
the document validates against its schema in docs/schema/. Also: the compare, gpus and fit
pages hold the CLI's table for the same question; the OpenAPI document names every endpoint
asked here, errors are JSON with their status, and SIGTERM stops the server
with exit 0.

Usage: serve_api_test.py CANITRUN_BINARY SCHEMA_DIR
"""
import html
import json
import os
import signal
import subprocess
import sys
import urllib.parse

from serve_support import Failures, Server, cli, validators

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
from sampling import STRIDE, sampled  # noqa: E402

binary, schema_dir = sys.argv[1:3]
schemas = validators(schema_dir)

Q35 = "qwen3.5-35b-a3b"
# (path, query, CLI arguments, schema): the two forms written out by hand, not derived one from
# the other, so a route that maps a parameter to the wrong flag fails.
QUESTIONS = [
    (f"/api/v1/models/{Q35}", {}, [Q35, "--json"], "model-report"),
    (f"/api/v1/models/{Q35}", {"quant": "Q4_K_M", "ctx": "32k", "gpu": "RTX 4090"},
     [Q35, "--quant", "Q4_K_M", "--ctx", "32k", "--gpu", "RTX 4090", "--json"], "model-report"),
    ("/api/v1/models/llama-3.1-8b", {"quant": "Q8_0", "ctx": "128k", "kv_type": "q8_0"},
     ["llama-3.1-8b", "-q", "Q8_0", "-c", "128k", "--kv-type", "q8_0", "--json"], "model-report"),
    (f"/api/v1/models/{Q35}", {"gpu": "2x3090", "ctx": "64k"},
     [Q35, "--gpu", "2x3090", "--ctx", "64k", "--json"], "model-report"),
    ("/api/v1/models/llama-3.1-8b", {"gpu": "RTX 4060", "ram": "64", "ctx": "128k"},
     ["llama-3.1-8b", "--gpu", "RTX 4060", "--ram", "64", "--ctx", "128k", "--json"],
     "model-report"),
    ("/api/v1/models/gpt-oss-20b", {"engine": "quick", "kv_type": "turboquant"},
     ["gpt-oss-20b", "--engine", "quick", "--kv-type", "turboquant", "--json"], "model-report"),
    (f"/api/v1/models/{Q35}",
     {"kv_type": "q8_0", "flash_attn": "on", "parallel": "4", "gpu": "RTX 5090"},
     [Q35, "--kv-type", "q8_0", "--flash-attn", "on", "--parallel", "4", "--gpu",
      "RTX 5090", "--json"], "model-report"),
    (f"/api/v1/models/{Q35}", {"vram": "24"}, [Q35, "--vram", "24", "--json"], "model-report"),
    ("/api/v1/models/llama-3.1-8b", {"users": "4", "ctx": "32k", "gpu": "RTX 4090"},
     ["llama-3.1-8b", "--users", "4", "--ctx", "32k", "--gpu", "RTX 4090", "--json"],
     "model-report"),
    (f"/api/v1/gpus/{Q35}", {}, ["gpus", Q35, "--json"], "gpus-for-model"),
    ("/api/v1/gpus/llama-3.1-8b", {"quant": "Q8_0", "ctx": "32k"},
     ["gpus", "llama-3.1-8b", "--quant", "Q8_0", "--ctx", "32k", "--json"], "gpus-for-model"),
    ("/api/v1/fit", {"gpu": "RTX 4090"}, ["fit", "--gpu", "RTX 4090", "--json"], "fit"),
    ("/api/v1/fit", {"gpu": "2xH100", "ctx": "32k", "sort": "speed"},
     ["fit", "--gpu", "2xH100", "--ctx", "32k", "--sort", "speed", "--json"], "fit"),
    ("/api/v1/compare", {"models": f"{Q35},gpt-oss-20b"},
     ["compare", Q35, "gpt-oss-20b", "--json"], "compare"),
    ("/api/v1/compare", {"models": "llama-3.1-8b,gpt-oss-20b", "quant": "Q8_0", "ctx": "16k"},
     ["compare", "llama-3.1-8b", "gpt-oss-20b", "--quant", "Q8_0", "--ctx", "16k", "--json"],
     "compare"),
    ("/api/v1/models", {}, ["models", "--json"], "models"),
    ("/api/v1/models", {"family": "qwen"}, ["models", "--family", "qwen", "--json"], "models"),
    ("/api/v1/gpu-list", {}, ["gpu-list", "--json"], "gpu-list"),
    ("/api/v1/gpu-list", {"vendor": "amd", "min_vram": "24"},
     ["gpu-list", "--vendor", "amd", "--min-vram", "24", "--json"], "gpu-list"),
    ("/api/v1/quants", {}, ["quants", "--json"], "quants"),
]
assert len(QUESTIONS) == 20

f = Failures()
server = Server(binary, "--quiet")
try:
    codes = set()
    for path, query, args, schema in sampled(QUESTIONS):
        target = path + ("?" + urllib.parse.urlencode(query) if query else "")
        status, headers, body = server.get(target)
        code, expected = cli(binary, args)
        codes.add(code)
        f.check(code in (0, 1), f"{args}: the CLI answers (exit {code})")
        f.check(status == 200, f"{target}: status {status}")
        f.check(body == expected, f"{target}: the body is not `canitrun {' '.join(args)}`'s "
                                  f"stdout ({len(body)} against {len(expected)} bytes)")
        f.check(headers.get("X-Canitrun-Exit", "0") == str(code),
                f"{target}: X-Canitrun-Exit {headers.get('X-Canitrun-Exit')} for exit {code}")
        f.check(headers.get("Content-Type") == "application/json", f"{target}: content type")
        errors = list(schemas[schema].iter_errors(json.loads(body)))
        f.check(not errors, f"{target}: {schema} schema: {errors[:1]}")

    # At least one question is asked of hardware that does not hold the model (exit 1), and
    # one of hardware that does, so both codes are covered by the comparison above (a property
    # of the whole list: a sanitized build's sample may hold one of them).
    f.check(codes == {0, 1} or (STRIDE > 1 and codes <= {0, 1}),
            f"the questions cover exits 0 and 1 (got {codes})")

    status, _, body = server.get("/api/v1/openapi.json")
    doc = json.loads(body)
    f.check(status == 200 and doc["openapi"].startswith("3."), "openapi.json is OpenAPI 3")
    for path, *_ in QUESTIONS:
        templated = path
        for prefix in ("/api/v1/models/", "/api/v1/gpus/"):
            if path.startswith(prefix):
                templated = prefix + ("{id}" if "models" in prefix else "{model}")
        f.check(templated in doc["paths"], f"openapi.json lists {templated}")

    # compare, gpus and fit as pages: the CLI's table for the same question, escaped, in a page.
    for target, args in [("/fit?gpu=RTX+4090", ["fit", "--gpu", "RTX 4090"]),
                         ("/compare?models=llama-3.1-8b,gpt-oss-20b",
                          ["compare", "llama-3.1-8b", "gpt-oss-20b"]),
                         (f"/gpus/{Q35}?ctx=32k", ["gpus", Q35, "--ctx", "32k"])]:
        status, headers, body = server.get(target)
        _, text = cli(binary, args)
        escaped = html.escape(text.decode(), quote=True).replace("&#x27;", "&#39;")
        f.check(status == 200 and headers.get("Content-Type", "").startswith("text/html"),
                f"{target}: a page ({status})")
        f.check(escaped.encode() in body, f"{target}: holds `canitrun {' '.join(args)}`'s table")

    # A bad question is the CLI's error, as JSON with a status: the message is the CLI's
    # stderr line without its prefix.
    status, _, body = server.get("/api/v1/models/llama-3.1-8b?quant=Q4_K_Z")
    code, _ = cli(binary, ["llama-3.1-8b", "--quant", "Q4_K_Z", "--json"])
    err = json.loads(body)["error"]
    f.check(code == 2 and status == 400 and err["status"] == 400, "a bad quant: 400")
    f.check("Q4_K_Z" in err["message"] and not err["message"].startswith("canitrun"),
            f"the error names the value: {err['message']}")
    status, _, body = server.get("/api/v1/models/no-such-model")
    f.check(status == 404 and json.loads(body)["error"]["status"] == 404, "unknown model: 404")
    status, _, body = server.get("/api/v1/nothing-here")
    f.check(status == 404, "unknown endpoint: 404")
    status, _, _ = server.get("/api/v1/models/llama-3.1-8b?colour=red")
    f.check(status == 400, "an unknown parameter: 400")
    status, _, body = server.get("/api/v1/models/hf:unsloth/Qwen3-8B-GGUF")
    f.check(status == 403, f"a remote model without --allow-remote: 403 (got {status})")
    status, _, _ = server.get("/api/v1/fit?gpu=auto")
    f.check(status == 400, "gpu=auto is not probed per request")
    status, _, body = server.get("/api/v1/system")
    f.check(status == 200 and "gpus" in json.loads(body), "system: the detected hardware")
finally:
    code, err = server.stop()
f.check(code == 0, f"SIGTERM stops the server with exit 0 (got {code})")
f.check(b"canitrun: stopped" in err, "the server says it stopped")
f.check(b"GET" not in err, "--quiet: no access log")
f.check(b"warning" not in err, "bound to 127.0.0.1: no warning (serve_routes_test: --bind's)")

# Without --quiet: one access log line per request on stderr; Ctrl-C (SIGINT) stops it too;
# a second server on the same port is refused with exit 2 and one line.
server = Server(binary)
try:
    for target in ("/api/v1/quants", "/api/v1/models/no-such-model", "/api/v1/quants"):
        server.get(target)
    second = subprocess.run([binary, "serve", "--port", str(server.port)], capture_output=True,
                            timeout=30)
    f.check(second.returncode == 2 and second.stderr.startswith(b"canitrun: error: ")
            and second.stderr.count(b"\n") == 1, f"a port in use: exit 2 ({second.stderr!r})")
finally:
    code, err = server.stop(signal.SIGINT)
f.check(code == 0, f"SIGINT stops the server with exit 0 (got {code})")
log = [line for line in err.decode().splitlines() if '"GET ' in line]
f.check(len(log) == 3, f"one access log line per request: {log}")
# Each worker writes its line when its answer is sent: the order of the lines may differ.
quants_line = '127.0.0.1 "GET /api/v1/quants" 200 ' + str(len(cli(binary, ["quants", "--json"])[1]))
f.check(sum(line == quants_line for line in log) == 2,
        f"the line names the client, the request, the status and the bytes: {log}")
f.check(any(line.startswith('127.0.0.1 "GET /api/v1/models/no-such-model" 404 ') for line in log),
        f"the log line has the error's status: {log}")
sys.exit(1 if f.count else 0)
