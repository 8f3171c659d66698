#!/usr/bin/env python3
"""Runs the real canitrun binary and validates every JSON document it prints against the JSON
Schemas in docs/schema/ (draft 2020-12), with Debian's python3-jsonschema.

Usage: json_schema_test.py CANITRUN_BINARY SCHEMA_DIR FIXTURES_DIR
"""
import json
import subprocess
import sys

import jsonschema

binary, schema_dir, fixtures = sys.argv[1:4]
tiny = fixtures + "/tiny-database"

# (schema file, arguments): every command that prints JSON, with the options that add
# optional sections (--vram, --gpu), and the small fixture database's edge cases (no GPU holds
# the 1T-parameter model: smallest_gpu is null, the matrix cells have no card).
CASES = [
    ("model-report", ["qwen3.5-35b-a3b", "--json"]),
    ("model-report", ["qwen3.5-35b-a3b", "--json", "--vram", "24", "--gpu", "RTX 4090"]),
    ("model-report", ["qwen3.5-35b-a3b", "--json", "--vram", "1", "--gpu", "h200"]),
    ("model-report", ["gemma-3-27b", "--json", "--ctx", "128k", "--kv-type", "q8_0"]),
    ("model-report", ["--data", tiny, "trillion-fp32-test", "--quant", "FP32", "--ctx", "10M",
                      "--json", "--vram", "24", "--gpu", "rtx-5090"]),
    ("gpus-for-model", ["gpus", "qwen3.5-35b-a3b", "--json"]),
    ("gpus-for-model", ["--data", tiny, "gpus", "trillion-fp32-test", "--json"]),
    ("models", ["models", "--json"]),
    ("models", ["models", "--family", "no-such-family", "--json"]),
    ("gpu-list", ["gpu-list", "--json"]),
    ("quants", ["quants", "--json"]),
]

failures = 0
validators = {}
for name in sorted({c[0] for c in CASES}):
    with open(f"{schema_dir}/{name}.schema.json") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validators[name] = jsonschema.Draft202012Validator(schema)

for name, args in CASES:
    run = subprocess.run([binary] + args, capture_output=True, text=True)
    label = f"{name}: canitrun {' '.join(args)}"
    # exit 1 is "does not fit the --gpu asked about", still a full answer
    if run.returncode not in (0, 1) or run.stderr:
        print(f"FAIL {label}: exit {run.returncode}, stderr {run.stderr!r}")
        failures += 1
        continue
    doc = json.loads(run.stdout)
    errors = sorted(validators[name].iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"FAIL {label}: at {'/'.join(map(str, e.path))}: {e.message[:200]}")
    failures += bool(errors)
    if not errors:
        print(f"ok   {label}")

# The schemas are not vacuous: a report without its model, or with a negative byte count, or
# with a fractional one, is rejected.
report = json.loads(subprocess.run([binary, "qwen3.5-35b-a3b", "--json"], capture_output=True,
                                   text=True, check=True).stdout)
broken = [dict(report), json.loads(json.dumps(report)), json.loads(json.dumps(report))]
del broken[0]["model"]
broken[1]["estimate"]["total_bytes"] = -1
broken[2]["quants"][0]["weights_bytes"] = 1.5
for i, doc in enumerate(broken):
    if validators["model-report"].is_valid(doc):
        print(f"FAIL the model-report schema accepts broken document {i}")
        failures += 1

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
