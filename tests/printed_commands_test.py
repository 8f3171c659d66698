#!/usr/bin/env python3
"""Every llama-server, Ollama and vLLM line canitrun prints runs as printed, and runs the plan.

Usage: printed_commands_test.py CANITRUN FIXTURES_DIR DATA_DIR [MODEL ...]

For every database model (or those given) and a set of hardware setups, it runs the binary's
text page and the same question's JSON, collects every command the page prints, and checks them
against the flags the runtimes accept (tests/fixtures/runtime-flags/: llama.cpp's common/arg.cpp,
Ollama's envconfig, vLLM's arg_utils, each cited there):
- llama-server: each flag exists and is offered to llama-server; an int is an int, an enum value one of its choices; no flag
  names a file (-m, --mmproj) next to -hf, which fetches what it needs; -c is the plan's context
  (times the sequences), -ngl / --n-cpu-moe / -ts are the plan's placement, -ub past the default
  batch comes with -b as large, and -hf names the model's recorded repo;
- Ollama: each variable exists, and OLLAMA_CONTEXT_LENGTH x OLLAMA_NUM_PARALLEL is the cache the
  plan holds; the KV type is one Ollama takes;
- vllm serve: each flag exists, and it serves the model's repo or a checkpoint the data records.
"""
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

SETUPS = [
    ["--gpu", "RTX 4090"],
    ["--gpu", "2x3090", "--ram", "64"],
    ["--gpu", "RTX 4060", "--ram", "64", "--ctx", "16k"],
    ["--gpu", "RTX 4090", "--users", "2", "--ctx", "8k"],
    ["--gpu", "RTX 4090", "--ubatch", "4096", "--kv-type", "q8_0", "--ctx", "8k"],
    ["--engine", "vllm", "--gpu", "H100"],
    ["--gpu", "RTX 4090", "--ram", "128", "--ctx", "128k"],
]
# One setup more for one model each: where the plan keeps a chosen set of layers' experts in
# RAM (-ot): docs/METHOD.md's worked case on two GPUs, three on three and four
# (tests/best_plan_test.cpp's hand cases).
EXTRA = {
    "gpt-oss-120b": [["--gpu", "2x4060 ti 16gb", "--ram", "64"]],
    "glm-4.5-air": [
        ["--gpu", "3x3060 12gb", "--ram", "64"],
        ["--gpu", "4x3060 12gb", "--ram", "64"],
        ["--gpu", "3090,4090,4060 ti 16gb", "--ram", "64"],
    ],
}


def run(canitrun, args):
    out = subprocess.run([canitrun, *args], capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout, out.stderr


def commands(text):
    """The commands of a page: single lines and backslash-continued blocks."""
    found, block = [], None
    for line in text.splitlines():
        s = line.strip()
        if block is not None:
            block += " " + s.rstrip("\\").strip()
            if not s.endswith("\\"):
                found.append(block)
                block = None
            continue
        if s.startswith("./llama-server") and s.endswith("\\"):
            block = s.rstrip("\\").strip()
        elif s.startswith("llama.cpp: llama-server") or s.startswith("llama-server "):
            found.append(s.split(": ", 1)[1] if s.startswith("llama.cpp:") else s)
        elif "ollama serve" in s or s.startswith("vllm serve"):
            found.append(s.split("   #")[0].strip())
    return [c.replace("./llama-server", "llama-server", 1) for c in found]


class Flags:
    def __init__(self, fixtures):
        llama = json.loads((fixtures / "runtime-flags/llama-cpp.json").read_text())
        # llama-server parses only the options offered to it (set_examples with the server, or
        # none: every program) and not excluded from it (set_excludes: -p, -f); another
        # program's option is an invalid argument there, and a removed one an error naming its
        # replacement. A spelling two add_opt calls share (-np) is the server's.
        self.llama, self.other = {}, {}
        for o in llama["options"]:
            offered = ("server" in o["examples"] or "common" in o["examples"]) and not (
                "server" in o.get("excludes", []) or o.get("removed"))
            table = self.llama if offered else self.other
            for a in o["args"]:
                table[a] = o
            for a in o.get("args_neg", []):
                table[a] = {**o, "takes_value": False, "kind": "flag"}
        self.other = {a: o for a, o in self.other.items() if a not in self.llama}
        ollama = json.loads((fixtures / "runtime-flags/ollama.json").read_text())
        self.ollama = {o["name"] for o in ollama["options"] if o.get("type") == "env"}
        self.ollama_kv = set(ollama["kv_cache_types"]["documented"])
        vllm = json.loads((fixtures / "runtime-flags/vllm.json").read_text())
        self.vllm = {f for o in vllm["options"] for f in o["flags"]}


def check_value(option, value):
    kind = option["kind"]
    if kind == "int":
        int(value)
    elif kind == "float":
        float(value)
    elif kind == "enum" and value not in option["choices"]:
        raise ValueError(f"{value!r} is not one of {option['choices']}")
    elif kind == "int_or_enum" and value not in option["choices"]:
        int(value)


def llama_args(flags, argv, problems):
    """{flag: value} of a llama-server line, each flag and value checked."""
    parsed, i = {}, 1
    while i < len(argv):
        a = argv[i]
        option = flags.llama.get(a if not a.startswith("--") else a.replace("_", "-"))
        if option is None:
            other = flags.other.get(a)
            problems.append(f"unknown flag {a}" if other is None
                            else f"{a} is removed: {other['replacement']}" if other.get("removed")
                            else f"{a} is not offered to llama-server ({', '.join(other['examples'])})")
            i += 1
            continue
        if option["takes_value"]:
            if i + 1 >= len(argv):
                problems.append(f"{a} without its value")
                break
            try:
                check_value(option, argv[i + 1])
            except ValueError as e:
                problems.append(f"{a} {argv[i + 1]}: {e}")
            parsed[option["args"][0]] = argv[i + 1]
            i += 2
        else:
            parsed[option["args"][0]] = True
            i += 1
    return parsed


def check_llama(flags, line, plan, model_entry, problems):
    model = model_entry.get("run", {})
    parsed = llama_args(flags, shlex.split(line), problems)

    class Args(dict):  # looked up by any spelling of a flag
        def key(self, k):
            return flags.llama[k]["args"][0] if k in flags.llama else k

        def __contains__(self, k):
            return dict.__contains__(self, self.key(k))

        def __getitem__(self, k):
            return dict.__getitem__(self, self.key(k))

        def get(self, k, default=None):
            return dict.get(self, self.key(k), default)

    args = Args(parsed)
    # -m names a file on disk: a remote name (hf:, ollama:, a URL) is llama-server's -hf / -mu
    if "-m" in args and args["-m"].startswith(("hf:", "ollama:", "http://", "https://")):
        problems.append(f"-m {args['-m']} is no file: load it with -hf or -mu")
    if "-hf" in args:
        for file_flag in ("-m", "--mmproj"):
            if file_flag in args:
                problems.append(f"{file_flag} names a file beside -hf, which fetches it")
        repo, _, tag = args["-hf"].partition(":")
        if model.get("gguf_repo") and repo != model["gguf_repo"]:
            problems.append(f"-hf {repo} is not the recorded repo {model['gguf_repo']}")
        if model.get("gguf_quants") and tag not in model["gguf_quants"]:
            problems.append(f"-hf names {tag}, which {repo} does not publish")
    sel = plan["hardware"]["selected"] if plan.get("hardware") else None
    if sel is None:
        return
    # the plan's context is the cache's cells, shared by --parallel's sequences
    if "-c" in args and int(args["-c"]) != sel["context"]:
        problems.append(f"-c {args['-c']} is not the plan's {sel['context']} cells")
    # past a YaRN model's native window the line must turn YaRN on (Qwen's model cards)
    context = model_entry.get("context", {})
    per_seq = sel["context"] // int(args.get("--parallel", 1))
    if context.get("extension") == "YaRN" and per_seq > context["native"]:
        want = -(-per_seq // context["native"])
        if (args.get("--rope-scaling") != "yarn" or int(args.get("--rope-scale", 0)) < want
                or int(args.get("--yarn-orig-ctx", 0)) != context["native"]):
            problems.append(f"{per_seq} tokens past the native {context['native']} without YaRN")
    ub = int(args.get("-ub", 512))
    if ub > 2048 and int(args.get("-b", 2048)) < ub:
        problems.append(f"-ub {ub} is capped by the default batch")
    if sel["plan"] in ("native", "layer_offload", "expert_offload"):
        check_experts(args, sel, problems)
        split = sel.get("tensor_split") or []
        if len(split) > 1 and "-ts" in args:
            if [int(float(x)) for x in args["-ts"].replace("/", ",").split(",")] != split:
                problems.append(f"-ts {args['-ts']} is not the plan's {split}")


def check_experts(args, sel, problems):
    """The layers whose routed experts the line keeps in RAM are the plan's: --cpu-moe all,
    --n-cpu-moe N the first N, -ot PATTERN=CPU those whose expert tensors the pattern finds
    (llama.cpp matches an override with std::regex_search on the tensor's name)."""
    layers = sel["ram"]["layers"] + sum(g["layers"] for g in sel["gpus"])
    want = set(sel.get("cpu_moe_set") or range(sel["cpu_moe_layers"]))
    got = set()
    if "--cpu-moe" in args:
        got = set(range(layers))
    elif "--n-cpu-moe" in args:
        got = set(range(int(args["--n-cpu-moe"])))
    elif "-ot" in args:
        pattern, _, buffer = args["-ot"].rpartition("=")
        if buffer != "CPU":
            problems.append(f"-ot {args['-ot']} does not put its tensors in RAM")
        kinds = ("ffn_up_exps", "ffn_down_exps", "ffn_gate_exps", "ffn_gate_up_exps")
        for i in range(layers):
            found = [bool(re.search(pattern, f"blk.{i}.{k}.weight")) for k in kinds]
            if any(found) != all(found):
                problems.append(f"-ot {pattern} takes part of layer {i}'s experts")
            if any(found):
                got.add(i)
            for other in ("ffn_up", "ffn_gate_inp", "ffn_up_shexp", "attn_q"):
                if re.search(pattern, f"blk.{i}.{other}.weight"):
                    problems.append(f"-ot {pattern} takes blk.{i}.{other}, no routed expert")
    if got != want:
        problems.append(f"the line keeps layers {sorted(got)}' experts in RAM, "
                        f"the plan {sorted(want)}")


def check_ollama(flags, line, plan, problems):
    env = {}
    for word in shlex.split(line):
        if "=" in word and word.split("=")[0].isupper():
            k, v = word.split("=", 1)
            env[k] = v
            if k not in flags.ollama:
                problems.append(f"unknown Ollama variable {k}")
    if "OLLAMA_KV_CACHE_TYPE" in env and env["OLLAMA_KV_CACHE_TYPE"] not in flags.ollama_kv:
        problems.append(f"Ollama takes no KV type {env['OLLAMA_KV_CACHE_TYPE']}")
    kv = plan.get("kv_type", "f16")
    if kv != "f16" and kv in flags.ollama_kv and env.get("OLLAMA_KV_CACHE_TYPE") != kv:
        problems.append(f"the plan's {kv} cache is not on the Ollama line")
    sel = plan["hardware"]["selected"] if plan.get("hardware") else None
    if sel and "OLLAMA_CONTEXT_LENGTH" in env:
        # The runner's cache is OLLAMA_CONTEXT_LENGTH x OLLAMA_NUM_PARALLEL: the plan's cells,
        # or, for a model Ollama runs one request at a time (sched.go), one sequence of the
        # plan's per-sequence context. The whole cache given as each request's context (the
        # issue's 65,536 x 4) is neither.
        parallel = int(env.get("OLLAMA_NUM_PARALLEL", 1))
        cells = int(env["OLLAMA_CONTEXT_LENGTH"]) * parallel
        per_user = (plan["hardware"].get("serving") or {}).get("per_user_context")
        serial = parallel == 1 and cells == per_user
        if cells != sel["context"] and not serial:
            problems.append(f"Ollama's cache of {cells} cells is not the plan's {sel['context']}")


def check_vllm(flags, line, model_entry, problems):
    words = shlex.split(line)
    # The repo served is the model's own or a checkpoint the data records for it (run.checkpoints).
    repos = {model_entry.get("hf_repo")}
    repos |= {c["repo"] for c in model_entry.get("run", {}).get("checkpoints", [])}
    if len(words) > 2 and words[2] not in repos:
        problems.append(f"vllm serve {words[2]} is neither the model's repo nor a recorded checkpoint")
    for word in words[2:]:
        if word.startswith("--") and word.split("=")[0] not in flags.vllm:
            problems.append(f"unknown vllm serve flag {word}")


def main():
    canitrun, fixtures, data = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    flags = Flags(fixtures)
    models = {}
    for f in sorted((data / "models").glob("*.json")):
        for m in json.loads(f.read_text()):
            models[m["id"]] = m
    ids = sys.argv[4:] or sorted(models)
    failures, count = [], 0
    for mid in ids:
        for setup in SETUPS + EXTRA.get(mid, []):
            rc, text, err = run(canitrun, [mid, *setup])
            if rc == 2:
                continue  # refused (a window shorter than --ctx): nothing printed to run
            _, js, _ = run(canitrun, [mid, *setup, "--json"])
            plan = json.loads(js)
            for line in commands(text):
                problems = []
                count += 1
                if line.startswith("llama-server"):
                    check_llama(flags, line, plan, models[mid], problems)
                elif "ollama serve" in line:
                    check_ollama(flags, line, plan, problems)
                else:
                    check_vllm(flags, line, models[mid], problems)
                failures += [f"{mid} {' '.join(setup)}: {line}\n    {p}" for p in problems]
    for f in failures:
        print(f)
    print(f"{count} printed commands checked over {len(ids)} models, {len(failures)} problems")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
