#!/usr/bin/env python3
"""Whether a change to the planner or the JSON writer changed a served answer: one server of
the NEW binary is asked model-page questions in a row, some models several times at other
contexts, quantizations and GPUs (so that what a thread keeps between requests, quant_memo.hpp
and the like, is read back), and each body is compared with what the OLD binary's CLI prints
for the same flags, one process per question. tools/ci/same_answers.sh does the same for the
CLI alone. Prints the questions that differ and "total=N diffs=D"; exit 1 if any differ.

Usage: bench/serve_same_answers.py OLD_CANITRUN NEW_CANITRUN
"""
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "serve"))
from serve_support import Server, cli  # noqa: E402

old, new = sys.argv[1:3]
FLAGS = {"quant": "--quant", "ctx": "--ctx", "gpu": "--gpu", "ram": "--ram",
         "kv_type": "--kv-type", "engine": "--engine", "parallel": "--parallel",
         "flash_attn": "--flash-attn", "users": "--users", "vram": "--vram"}
QUESTIONS = []
for model in ["qwen3.5-35b-a3b", "llama-3.1-8b", "gpt-oss-20b", "gemma-3-27b", "deepseek-v3",
              "qwen3-30b-a3b", "mistral-nemo-12b"]:
    for query in [{}, {"ctx": "5001"}, {"ctx": "5002", "gpu": "RTX 4090"},
                  {"quant": "Q8_0", "ctx": "32k", "gpu": "2x3090", "ram": "64"},
                  {"quant": "Q4_K_M", "ctx": "131072", "kv_type": "q8_0"},
                  {"ctx": "4096", "gpu": "RTX 4060", "ram": "32", "users": "4"},
                  {"engine": "quick", "ctx": "8192"}, {"ctx": "5003", "gpu": "RTX 4090"}]:
        QUESTIONS.append((model, query))

diffs = 0
server = Server(new, "--quiet")
try:
    for model, query in QUESTIONS:
        target = f"/api/v1/models/{model}" + ("?" + urllib.parse.urlencode(query) if query else "")
        status, _, body = server.get(target, timeout=60)
        args = [model] + [a for k, v in query.items() for a in (FLAGS[k], v)] + ["--json"]
        code, expected = cli(old, args)
        if body != expected:
            diffs += 1
            print(f"differs: {target} (status {status}, exit {code}, "
                  f"{len(body)} against {len(expected)} bytes)")
finally:
    server.stop()
print(f"total={len(QUESTIONS)} diffs={diffs}")
sys.exit(1 if diffs else 0)
