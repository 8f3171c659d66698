#!/usr/bin/env python3
"""Runs the real canitrun binary and validates every JSON document it prints against the JSON
Schemas in docs/schema/ (draft 2020-12), with Debian's python3-jsonschema.

Usage: json_schema_test.py CANITRUN_BINARY SCHEMA_DIR FIXTURES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "support"))
from sampling import sampled  # noqa: E402
from small_gguf import write_small_llama  # noqa: E402

binary, schema_dir, fixtures = sys.argv[1:4]
tiny = fixtures + "/tiny-database"
probe = fixtures + "/probe"
logs = fixtures + "/logs"
hf = fixtures + "/hf"
workdir = tempfile.TemporaryDirectory()


gguf = os.path.join(workdir.name, "small-llama.gguf")
write_small_llama(gguf)

# A home with one model in llama.cpp's cache and one unreadable file (canitrun local), and a
# loopback Hub serving a repo with the same file (hf:ORG/REPO), from tests/support/hub_server.py.
home = os.path.join(workdir.name, "home")
os.makedirs(os.path.join(home, ".cache", "llama.cpp"))
write_small_llama(os.path.join(home, ".cache", "llama.cpp", "org_repo_small-Q4_K_M.gguf"))
with open(os.path.join(home, ".cache", "llama.cpp", "broken.gguf"), "w") as f:
    f.write("not gguf")
hub_root = os.path.join(workdir.name, "hub")
os.makedirs(os.path.join(hub_root, "hf", "org", "repo"))
write_small_llama(os.path.join(hub_root, "hf", "org", "repo", "small-Q4_K_M.gguf"))
hub = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "support",
                                                     "hub_server.py"), hub_root],
                       stdout=subprocess.PIPE, text=True)
hub_port = hub.stdout.readline().split()[0]
LOCAL_ENV = {"HOME": home, "OLLAMA_MODELS": "", "HF_HOME": "", "LLAMA_CACHE": "",
             "CANITRUN_PROBE_RECORDING": probe + "/no-gpu"}
HUB_ENV = {"HF_ENDPOINT": "http://127.0.0.1:" + hub_port, "XDG_CACHE_HOME": workdir.name + "/c",
           "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1", "HF_TOKEN": ""}


def recording(name):
    return {"CANITRUN_PROBE_RECORDING": f"{probe}/{name}"}

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
    ("gpus-for-model", ["gpus", gguf, "--json", "--ctx", "4096"]),
    ("gpus-for-model", ["gpus", os.path.join(fixtures, "hf", "qwen3-next"), "--json"]),
    ("models", ["models", "--json"]),
    ("models", ["models", "--family", "no-such-family", "--json"]),
    ("gpu-list", ["gpu-list", "--json"]),
    ("quants", ["quants", "--json"]),
    # --gpu: the hardware section (several GPUs, one, a detected machine without a GPU: no
    # plan for the selected quantization, a CPU-only best; an APU of unknown bandwidth; MIG)
    ("model-report", ["qwen3.5-35b-a3b", "--gpu", "2x3090", "--json"]),
    ("model-report", ["qwen3.5-35b-a3b", "--gpu", "RTX 4080", "--json"]),
    # a GPU the database lacks (--gpu-spec), and a name two memory variants share (a note)
    ("model-report", ["qwen3-8b", "--gpu-spec", fixtures + "/gpu-spec/mtt-s80.json", "--json"]),
    ("model-report", ["qwen3-8b", "--gpu", "4060ti", "--json"]),
    ("model-report", ["qwen3.5-35b-a3b", "--gpu", "auto", "--json"], recording("no-gpu")),
    ("model-report", ["qwen3.5-35b-a3b", "--gpu", "auto", "--json"], recording("amd-apu")),
    ("model-report", ["qwen3.5-35b-a3b", "--gpu", "auto", "--json"],
     recording("nvidia-a100-mig")),
    # a Hugging Face config: the model report plus params_source and file
    ("model-report", [hf + "/qwen3-next", "--json"]),
    ("model-report", [hf + "/qwen3-next/config.json", "--gpu", "RTX 4090", "--json"]),
    ("system", ["system", "--json"], recording("nvidia-2x3090")),
    ("system", ["system", "--json"], recording("nvidia-a100-mig")),
    ("system", ["system", "--json"], recording("amd-apu")),
    ("system", ["system", "--json"], recording("apple-m2-max")),
    ("system", ["system", "--json"], recording("no-gpu")),
    ("system", ["system", "--json"], recording("intel-arc-a770")),
    ("system", ["system", "--json"], recording("intel-arc-b580-xe")),
    ("system", ["system", "--json"], recording("vulkan-only")),
    ("system", ["system", "--json"], recording("jetson-agx-orin-64gb")),
    ("model-report", ["qwen3-8b", "--gpu", "auto", "--json"], recording("jetson-agx-orin-64gb")),
    ("fit", ["fit", "--gpu", "RTX 4090", "--json"]),
    ("fit", ["fit", "--gpu", "2x3090", "--json"]),
    ("fit", ["fit", "--gpu", "auto", "--json"], recording("no-gpu")),
    ("fit", ["fit", "--gpu", "auto", "--json"], recording("apple-m2-max")),
    # the page by each rule: llama.cpp's (the default), the quick rule, and a model whose
    # architecture the llama.cpp rule does not model yet (planned by the quick rule, with a note)
    ("model-report", ["qwen3.5-35b-a3b", "--engine", "llama.cpp", "--parallel", "4", "--json"]),
    ("model-report", ["qwen3.5-35b-a3b", "--engine", "quick", "--json", "--vram", "24"]),
    ("model-report", ["gemma-3n-e4b", "--json", "--vram", "8"]),
    ("engine-llamacpp", [gguf, "--engine", "llama.cpp", "--json"]),
    ("engine-vllm", ["llama-3.1-8b", "--engine", "vllm", "--gpu", "h100", "--json"]),
    # too big for the card: no KV pool, no sequence
    ("engine-vllm", ["llama-3.1-405b", "--engine", "vllm", "--gpu", "h100", "--json"]),
    # tensor x pipeline parallel over two hosts; a context past the window, capped
    ("engine-vllm", ["deepseek-v3", "--engine", "vllm", "--quant", "FP8", "--host", "8xh100-sxm",
                     "--host", "8xh100-sxm", "--json"]),
    ("engine-vllm", ["llama-3.1-8b", "--engine", "vllm", "--vram", "24", "--ctx", "128k",
                     "--users", "4", "--json"]),
    # llama.cpp RPC over two and three hosts; several users on one GPU
    ("cluster-rpc", ["llama-3.1-405b", "--host", "m3-ultra-256gb", "--host", "m3-ultra-256gb",
                     "--json"]),
    ("cluster-rpc", ["llama-3.1-70b", "--host", "rtx-4090:ram=64", "--host", "2x3090", "--host",
                     "rtx-3090", "--link", "1", "--json"]),
    ("cluster-exo", ["llama-3.1-405b", "--engine", "exo", "--host", "m3-ultra-256gb", "--host",
                     "m3-ultra-256gb", "--json"]),
    ("cluster-exo", ["llama-3.1-405b", "--engine", "exo", "--host", "rtx-4090", "--json"]),
    ("model-report", ["llama-3.1-8b", "--gpu", "rtx-4090", "--users", "4", "--ctx", "32k",
                      "--json"]),
    # growth lowered to fit 32 GB of RAM, for the page's plan and the serving line's own
    ("model-report", ["olmo-3-7b", "--gpu", "RTX 4090", "--json"]),
    # placement flags that make the plan fail: the planner's own placement beside it
    ("model-report", ["qwen3-30b-a3b", "--quant", "Q4_K_M", "--gpu", "4060 ti 16gb", "--ram", "32",
                      "--n-cpu-moe", "0", "--json"]),
    ("gguf-file", [gguf, "--json"]),
    ("gguf-file", [gguf, "--json", "--gpu", "RTX 4090"]),
    ("gguf-file", [gguf, "--json", "--vram", "80", "--ctx", "4096"]),
    ("verify", ["verify", logs + "/llama-3.1-8b-Q4_K_M-cpu.log", "--json"]),
    ("verify", ["verify", logs + "/gemma-3-27b-Q4_K_M-cpu.log", "--json"]),
    ("verify", ["verify", logs + "/qwen3.5-35b-a3b-Q4_K_M-cpu.log", "--json"]),
    # per device on named cards: runtime rows and a verdict per GPU
    ("verify", ["verify", logs + "/cudax-006-qwen3-30b-a3b-q4km-4090-5090-exps-cpu.log", "--gpu",
                "RTX 3090", "--json"]),
    # compare: database models, a config.json folder and a GGUF file as operands, with --gpu
    ("compare", ["compare", "qwen3.5-35b-a3b", "llama-3.1-8b", "--json"]),
    ("compare", ["compare", "qwen3.5-35b-a3b", hf + "/qwen3-next", gguf, "--gpu", "RTX 4090",
                 "--json"]),
    ("compare", ["compare", "gemma-3-27b", "gpt-oss-20b", "--engine", "quick", "--json"]),
    ("local", ["local", "--json"], LOCAL_ENV),
    ("local", ["local", "--json", "--gpu", "RTX 4090"], LOCAL_ENV),
    ("hf-repo", ["hf:org/repo", "--json"], HUB_ENV),
    ("hf-repo", ["hf:org/repo", "--json", "--gpu", "RTX 4090"], HUB_ENV),
    ("gguf-file", ["hf:org/repo:Q4_K_M", "--json", "--gpu", "RTX 4090"], HUB_ENV),
    # the page's facts and curve for a model with an editorial entry, under both rules
    ("model-report", ["qwen3.5-35b-a3b", "--engine", "quick", "--json", "--ctx", "256k"]),
]

failures = 0
validators = {}
for name in sorted({c[0] for c in CASES}):
    with open(f"{schema_dir}/{name}.schema.json") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validators[name] = jsonschema.Draft202012Validator(schema)



def run_json(args, env=None):
    return subprocess.run([binary] + args, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


for name, args, *env in sampled(CASES):
    run = run_json(args, env[0] if env else None)
    label = f"{name}: canitrun {' '.join(args)}"
    if env and "CANITRUN_PROBE_RECORDING" in env[0]:
        label += f" ({os.path.basename(env[0]['CANITRUN_PROBE_RECORDING'])} recording)"
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



# One broken document per newer schema: a wrong type, a negative or fractional byte count, a
# missing required field, a value outside an enum, deep inside each document.
def broken(name, args, env, breaks):
    global failures
    doc = json.loads(run_json(args, env).stdout)
    breaks(doc)
    if validators[name].is_valid(doc):
        print(f"FAIL the {name} schema accepts a broken document")
        failures += 1


def set_plan(d):
    d["hardware"]["selected"]["plan"] = "maybe"


def fractional_memory(d):
    d["gpus"][0]["memory_bytes"] = 1.5


def speed_text(d):
    d["models"][0]["speed"]["decode_tokens_per_s"] = "fast"


def negative_gpu_bytes(d):
    d["gpu_bytes"] = -1


def no_kv_pool(d):
    del d["kv_pool_bytes"]


def fractional_mix(d):
    d["quant_mix"][0]["bytes"] = 0.5


def text_bytes(d):
    d["contexts"][0]["terms"][0]["estimate_bytes"] = "12"


broken("model-report", ["qwen3.5-35b-a3b", "--gpu", "RTX 4090", "--json"], None, set_plan)
broken("system", ["system", "--json"], recording("nvidia-2x3090"), fractional_memory)
broken("fit", ["fit", "--gpu", "RTX 4090", "--json"], None, speed_text)
broken("engine-llamacpp", [gguf, "--engine", "llama.cpp", "--json"], None, negative_gpu_bytes)
def exo_fractional_layers(d):
    d["nodes"][0]["layers"] = 1.5


broken("cluster-exo", ["llama-3.1-405b", "--engine", "exo", "--host", "m3-ultra-256gb",
                       "--json"], None, exo_fractional_layers)


def rpc_negative_traffic(d):
    d["network"]["bytes_per_token"] = -1


broken("cluster-rpc", ["llama-3.1-405b", "--host", "m3-ultra-256gb", "--host", "m3-ultra-256gb",
                       "--json"], None, rpc_negative_traffic)
broken("engine-vllm", ["llama-3.1-8b", "--engine", "vllm", "--gpu", "h100", "--json"], None,
       no_kv_pool)
broken("gguf-file", [gguf, "--json"], None, fractional_mix)
# ... and the GGUF written above is the one file_cli_test.cpp writes (weights as derived there)
if json.loads(run_json([gguf, "--json"]).stdout)["weights_bytes"] != 295518208:
    print("FAIL the small GGUF file does not hold 295,518,208 bytes of weights")
    failures += 1
broken("verify", ["verify", logs + "/llama-3.1-8b-Q4_K_M-cpu.log", "--json"], None, text_bytes)

# The input schema of --gpu-spec files agrees with the C++ reader on the fixtures: the card the
# binary plans above is valid, the file it refuses is not, and so are the reader's other
# refusals (both memory fields, a unified machine without its share, Apple without unified).
with open(f"{schema_dir}/gpu-spec.schema.json") as f:
    spec_schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(spec_schema)
spec_validator = jsonschema.Draft202012Validator(spec_schema)
with open(fixtures + "/gpu-spec/mtt-s80.json") as f:
    card = json.load(f)
if not spec_validator.is_valid(card):
    print("FAIL gpu-spec schema refuses tests/fixtures/gpu-spec/mtt-s80.json")
    failures += 1
with open(fixtures + "/gpu-spec/three-mistakes.json") as f:
    refused = [json.load(f)]
refused.append({**card, "memory_bytes": 17179869184})
refused.append({**card, "unified": True})
refused.append({**card, "vendor": "apple"})
refused.append({**card, "id": "Bad Id"})
for i, doc in enumerate(refused):
    if spec_validator.is_valid(doc):
        print(f"FAIL gpu-spec schema accepts refused description {i}")
        failures += 1
    path = os.path.join(workdir.name, f"refused-{i}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    if run_json(["qwen3-8b", "--gpu-spec", path]).returncode != 2:
        print(f"FAIL canitrun accepts refused description {i}")
        failures += 1

hub.terminate()
print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
