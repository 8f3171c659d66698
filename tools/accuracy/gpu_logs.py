#!/usr/bin/env python3
"""canitrun's GPU figures against published llama.cpp logs (validation/llama-logs/).

Runs `canitrun verify LOG --json` on every log of the corpus and compares, per device, what
llama.cpp allocated (model, KV cache, recurrent state and compute buffers on each GPU, and the
host's buffers) with canitrun's plan of the same devices at the log's settings. Writes the
tables to docs/ACCURACY-GPU.md; with --check, fails if that file would change; with --bounds,
fails if a figure is worse than the bounds below (so a later change cannot quietly make them
worse).

    tools/accuracy/gpu_logs.py build/canitrun            # regenerate docs/ACCURACY-GPU.md
    tools/accuracy/gpu_logs.py build/canitrun --check    # CI: the file is up to date
    tools/accuracy/gpu_logs.py build/canitrun --bounds   # the figures hold
    tools/accuracy/gpu_logs.py build/canitrun --check --bounds   # ctest: both, one pass
    tools/accuracy/gpu_logs.py build/canitrun --bounds --sample 4
        # the sanitized builds' ctest: every 4th log, each read whole or its unread lines
        # named, no compute row past the worst bound; the medians need every log and are the
        # plain build's to hold

Logs of forks (ik_llama.cpp: its -fmoe, -amb, -mla, -rtr change the compute buffers) count for
weights and KV cache, not for compute.
"""

import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LOGS = os.path.join(ROOT, "validation", "llama-logs")
OUT = os.path.join(ROOT, "docs", "ACCURACY-GPU.md")
MIB = 1 << 20

# The bounds --bounds holds: (backend or "all", device kind, term) -> (median |error| at most,
# share of rows within 10 % at least). Set from the corpus of 2026-12-04 (the first run), each
# a little above what it measured, so they can only be tightened. GPU compute tightened the same
# day from 9 % / 52 % (8.2 % measured) to 6.5 % / 57 % (5.9 % / 60 %) by the host-expert rule
# measured on an H200 (validation/cuda-h200/, src/core/hardware/placement.cpp). Tightened again
# the same day (compute 2 % / 66 %, 1.6 % / 68 % measured; CUDA 2 % / 60 %, 1.6 % / 62 %; host
# compute 1 % / 60 %, 0.2 % / 61 %) by the output head's copy to the first GPU, a GPU's output
# phase without the CPU's second row, Gemma 4's sliding layers read from print_info, the header
# notes and the vision projector's lines no longer read as the model's, and the two logs whose
# head stayed in RAM behind offloaded layers (builds before llama.cpp PR #18148) left out.
# A GPU's total: 1.4 % / 87 % (1.3 % / 88 % measured; the weights of Unsloth's UD files most).
# Tightened 2026-12-05 to 0.6 % / 95 % (0.51 % / 96.7 % measured) by Metal's mapped range of a
# tied head and Gemma 4's per-layer inputs read from the log (metal-001, -004: -34 % to -1.7 %
# and +7.5 %).
# Tightened 2026-12-05 (gpu31i) by the BLAS rule (placement.cpp, host_work: cudab-022's GPU 0
# +31.4 % -> +6.5 %, its host compute -87 % -> -4.6 %): GPU compute within 10 % 67 -> 69 %
# (42 of 61), CUDA's 66 -> 69 % (20 of 29), a GPU's total 97 -> 98 % (60 of 61), host compute
# 60 -> 62 % (36 of 58); each bound one row below, as before.
BOUNDS = {
    ("all", "gpu", "weights"): (0.01, 0.75),
    ("all", "gpu", "kv_cache"): (0.01, 0.80),
    ("all", "gpu", "compute"): (0.02, 0.67),
    ("CUDA", "gpu", "compute"): (0.02, 0.65),
    ("all", "gpu", "total_planned"): (0.006, 0.96),
    ("all", "gpu", "total"): (0.001, 0.98),
    ("all", "host", "compute"): (0.01, 0.60),
    ("all", "host", "output"): (0.01, 0.85),
}

# No GPU compute row may miss by more than both 25 % and 256 MiB (issue #31's target).
WORST_COMPUTE = (0.25, 256 * MIB)

# 2026-12-06 (gpu31o): a GPU's total splits in two (rows_of). "total_planned", the sum with
# canitrun's weights as before, keeps the bounds above (0.51 % / 98.4 % measured). "total"
# takes the log's weights where the file was typed otherwise than canitrun's data types it (the
# loader's count of tensors per type is not the plan's): 0.07 % / 100 % measured.

# No GPU's total may miss by more than this (issue #31's target is 3 %). "total": 6.5 %
# measured (cudab-022's GPU 0, which holds only a compute buffer: +48 MiB), set 2026-12-06.
# "total_planned": 11.7 % measured (metal-002's, Unsloth's UD-Q4_K_XL of Qwen3.5-9B), set
# 2026-12-05 when the BLAS rule took cudab-022 from +31.4 % to +6.5 %.
# 2026-12-06 (gpu31p): "total" held at issue #31's 3 % (2.2 % the worst row measured, rocm-004)
# now that verify reads cudab-012's unstated split from its model buffers (-3.6 % / +4.0 % ->
# +1.0 % / -0.8 %), but for cudab-022's GPU 0, whose cause the document names (its build's MoE
# graph before ggml's GLU ops) and which keeps its old bound: it stays in every figure.
# 2026-12-06 (gpu31r): kept. The older graph's rule was sought (docs/ACCURACY-GPU.md says what
# was tried): the corpus's other logs of that graph are the same model, so none tells a rule
# from a sum that fits only its widths.
# 2026-12-06 (gpu31s): kept. No published log of another MoE model from a build before b5622
# with the expert phase setting a GPU's buffer was found; the document gives each rule's figure.
# 2026-12-06 (lead, fourteenth session): removed. verify plans a build before ggml's GLU ops by
# its own MoE graph (the live set at the down product, derived from that build's source), and
# the f32 masks such a build casts beside the expert copy: cudab-022 +6.5 -> -2.2 %; every GPU
# total is now within issue #31's 3 %.
WORST_TOTAL = {"total": 0.03, "total_planned": 0.12}


def header(path):
    fields = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("# ---"):
                break
            if line.startswith("# ") and ":" in line:
                key, _, value = line[2:].partition(":")
                fields[key.strip()] = value.strip()
    return fields


def verify(binary, path):
    r = subprocess.run([binary, "verify", path, "--json"], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "no output"
    return json.loads(r.stdout), None


def rows_of(doc, fork):
    """(device kind, term, estimate, actual) for every per-device row with both sides, and per
    GPU two totals, the sum of the terms the log gives for it (not for forks, whose compute
    buffers do not count): "total_planned" with canitrun's weights, and "total" with the log's
    own weights where verify finds the file typed otherwise than canitrun's data types it (the
    log's count of tensors per type is not the plan's: `file_types_match` false). There the
    weights row measures the data's lack of the file's recipe, which the counts cannot plan
    (verify_devices.cpp's note_file_types says why), and "total" checks the other terms."""
    out = []
    for c in doc["contexts"]:
        d = c.get("devices")
        if not d:
            continue
        log_weights = d.get("file_types_match") is False
        totals = {}
        for r in d["rows"]:
            if r["estimate_bytes"] is None or r["llama_cpp_bytes"] is None:
                continue
            if fork and r["term"] == "compute":
                continue
            kind = "host" if r["device"] == "host" else "gpu"
            out.append((kind, r["term"], r["estimate_bytes"], r["llama_cpp_bytes"]))
            if kind == "gpu" and not fork:
                t = totals.setdefault(r["device"], [0, 0, 0])
                t[0] += r["estimate_bytes"]
                t[1] += r["llama_cpp_bytes"]
                own = log_weights and r["term"] == "weights"
                t[2] += r["llama_cpp_bytes"] if own else r["estimate_bytes"]
        out += [("gpu", "total_planned", est, act) for est, act, _ in totals.values()]
        out += [("gpu", "total", est, act) for _, act, est in totals.values()]
    return out


UNPLANNABLE = "not a placement canitrun plans, left out of the figures"


def unplannable(doc):
    """Why canitrun's placement cannot express the log's own (-ot onto a chosen GPU, the output
    head kept in RAM behind offloaded layers by builds before llama.cpp PR #18148), or None."""
    for c in doc["contexts"]:
        d = c.get("devices") or {}
        for n in d.get("notes", []):
            if "cannot say that" in n:
                return n.split(": canitrun")[0] + ": " + UNPLANNABLE
    return None


def read_whole(doc):
    """Every GPU the log names has its weights, KV and compute rows read from the log, or holds
    none of that term by both accounts (llama.cpp prints no buffer it does not allocate: a GPU
    with every layer in RAM has no model or KV buffer)."""
    found = False
    for c in doc["contexts"]:
        d = c.get("devices")
        if not d:
            continue
        found = True
        for gpu in d["gpus"]:
            rows = [r for r in d["rows"] if r["device"] == gpu]
            terms = {r["term"] for r in rows
                     if r["llama_cpp_bytes"] is not None or r["estimate_bytes"] == 0}
            terms |= {t for t in ("weights", "kv_cache")
                      if not any(r["term"] == t for r in rows)}
            if not {"weights", "kv_cache", "compute"} <= terms:
                return False
    return found


def not_whole_reasons(doc):
    """Why a log is not read whole, each named: the report's per-device notes (what the plan
    lacked), every memory line verify left unread (by line number and reason), and per GPU each
    term the log prints no line for."""
    reasons = [n for n in doc.get("notes", [])
               if n.startswith("per device:") or (n.startswith("line ") and " not read (" in n)]
    for c in doc["contexts"]:
        d = c.get("devices")
        if not d:
            continue
        for gpu in d["gpus"]:
            for term in ("weights", "kv_cache", "compute"):
                rows = [r for r in d["rows"] if r["device"] == gpu and r["term"] == term]
                if any(r["llama_cpp_bytes"] is None and r["estimate_bytes"] != 0 for r in rows):
                    reasons.append(f"{gpu} {term}: the log prints no line for it")
    return reasons


def rel(est, act):
    return (est - act) / act if act else (0.0 if est == 0 else 1.0)


def collect(binary, stride=1):
    logs, unread = [], []
    for name in sorted(n for n in os.listdir(LOGS) if n.endswith(".log"))[::stride]:
        path = os.path.join(LOGS, name)
        h = header(path)
        backend = h.get("backend", "?").split(",")[0].strip() or "?"
        fork = "ik_llama" in h.get("program", "")
        doc, error = verify(binary, path)
        if doc is None:
            unread.append((name, error))
            continue
        why = unplannable(doc)
        if why:
            unread.append((name, why))
            continue
        whole = read_whole(doc)
        logs.append({"name": name, "backend": backend, "fork": fork,
                     "rows": rows_of(doc, fork), "whole": whole,
                     "reasons": [] if whole else not_whole_reasons(doc)})
    return logs, unread


def summary(logs, backend, kind, term):
    errors, sizes = [], []
    for log in logs:
        if backend != "all" and log["backend"] != backend:
            continue
        for k, t, est, act in log["rows"]:
            if k == kind and t == term:
                errors.append(rel(est, act))
                sizes.append(abs(est - act))
    if not errors:
        return None
    absolute = sorted(abs(e) for e in errors)
    worst = max(errors, key=abs)
    return {"n": len(errors), "median": statistics.median(absolute), "worst": worst,
            "worst_mib": max(sizes) / MIB,
            "within10": sum(1 for e in absolute if e <= 0.10) / len(absolute)}


def render(logs, unread):
    backends = ["all"] + sorted({log["backend"] for log in logs})
    whole = sum(1 for log in logs if log["whole"])
    lines = [
        "# canitrun against published llama.cpp logs, per device",
        "",
        "Generated by `tools/accuracy/gpu_logs.py build/canitrun` from the logs in",
        "`validation/llama-logs/` (each with its source, build, devices and settings in its",
        "header). For every log, `canitrun verify LOG --json` plans the same model on the same",
        "devices with the log's settings (context, ubatch, sequences, unified KV, flash",
        "attention, cache types, offloaded layers, experts overridden to host memory, and",
        "llama.cpp's default split by each device's free memory) and sets each buffer the log",
        "reports beside canitrun's figure. Error = (canitrun - llama.cpp) / llama.cpp.",
        "Logs of forks (ik_llama.cpp) count for weights and KV cache, not for compute.",
        "`host` is every host buffer together (CPU, CPU_Mapped, CUDA_Host ...); a GPU's",
        "`total` is the sum of the terms the log gives for it (weights, KV, state, compute).",
        "canitrun plans the pinned llama.cpp: an MLA model's (deepseek2) cache is K only, the",
        "latent plus the rope key, flash attention on or off (llama-kv-cache.cpp, `has_v =",
        "!is_mla`, since PR #19067 of 2026-01). Builds from PR #12801 (2025-04) until then kept",
        "a V of kv_lora_rank values per cell too, also with flash attention on: the mainline",
        "log cudax-005 (b5331) prints 2074 MiB = K 1098 + V 976; canitrun says 1098 (-47 %;",
        "left out below for its -ot placement). ik_llama.cpp's MLA cache is K only.",
        "On Metal with mmap, a GPU that holds a tied output head maps the file from token_embd",
        "to its last layer as one buffer (llama-model.cpp's get_mapping_range), Gemma 4 E2B /",
        "E4B's per-layer table within; the pinned build keeps that table in host memory too (an",
        "input-layer tensor), where the two Gemma 4 logs' build (b8680) kept it out, so their",
        "`host` weights read high by it (+420 %, +897 %).",
        "Gemma 4 E2B's MTL0 weights read +306 MiB (+10.4 %) for its file's types, not a rule:",
        "the log's type counts (f32 353, q4_K 212, q5_K 1, q6_K 34, bf16 1) and its MTL0_Mapped",
        "span (2947.73 MiB, the whole file) are canitrun's Q4_K_M tensors to the 0.01 MiB with",
        "token_embd in Q4_K, per_layer_token_embd in Q5_K (the pinned llama-quantize: both",
        "Q6_K, as tools/accuracy/quant_check confirms) and the 70 blk.*.inp_gate / proj in F32",
        "(pinned: Q4_K). E4B's Q8_0 log (metal-001) alike: its 84 inp_gate / proj in F32 give",
        "its counts (423 / 296 / 1) and 7798.31 MiB (MTL0_Mapped 7798.32). Unsloth's plain",
        "file types are planned as the pinned llama-quantize types them.",
        "A log with a `CPU` compute buffer beside `CUDA_Host`'s comes from a build with BLAS",
        "(cudab-022, cudax-002, -003): BLAS multiplies the host's weights in RAM and only the",
        "routed experts go to GPU 0 (placement.cpp's host_work); verify plans it so.",
        "A GPU's `total` takes the log's own weights where verify finds the file typed",
        "otherwise than canitrun's data types it (the loader's `- type` counts are not the",
        "plan's; verify's note names both): its weights row measures the data's lack of that",
        "recipe (Unsloth's UD-* files most: metal-002 -15 %, rocm-009 -15 %, rocm-007 -7 %,",
        "vulkan-001 and -004 -2 %), which the counts cannot plan (which tensor holds which type",
        "is not in them). `total_planned` is the same sum with canitrun's weights. Where a",
        "log's buffers fix a tensor, data/quants.json has its rule: rocm-007's CPU_Mapped",
        "(552.23 MiB) is token_embd in q8_0, and only with output in q8_0 too do 105 more q8_0",
        "tensors make up ROCm0's 6078.75 MiB (to 0.3 MiB; without it the nearest set misses by",
        "0.85); rocm-009's ROCm_Host (784.00 MiB) is token_embd in f16. The rest of each file",
        "fits its buffer in several sets of counts, none of whole classes, and is not placed.",
        "vulkan-001 (Qwen3-Next) and -004 (Qwen3-Coder-30B-A3B) hold 43 / 11 q6_K where",
        "Q4_K_M writes 73 / 49, and their bytes leave room for at most 17 routed-expert tensors",
        "above q4_K: ffn_down_exps is q4_K in data/quants.json (was +5 %, q6_K in 24 layers).",
        "metal-002's MTL0_Mapped (5679.25 MiB) spans token_embd as well (CPU_Mapped, 545.62",
        "MiB, is token_embd in q4_K, and the log's file size, 5.55 GiB, leaves no room for both",
        "apart), which placement.cpp counts for a tied head only: the file's tensors read",
        "-5.7 % (5357.88 of 5679.25 MiB), the rest of the -15 % is that span.",
        "cudab-012 lists four GPUs but holds every buffer on CUDA2 and CUDA3, by a -ts or",
        "--device the log does not print: verify reads the split from the GPUs' model buffers",
        "(CUDA2 21 of the 41 units, as -ts 0,0,1,1 puts them, where a split by free memory puts",
        "20; its own state and KV lines say the same, 16 + 5 layers on CUDA2), so its weights,",
        "KV and state are exact (verify_devices.cpp's split_from_buffers).",
        "The five logs of builds before ggml's GLU ops with an expert copy on GPU 0",
        "(Qwen3-235B-A22B: cudab-022, cudax-001 to -004; b5269 to b5331) are planned by that",
        "graph (LlamaCppOptions::before_glu_ops, builds up to b5622; PR #14158 with #14181,",
        "2025-06-29, ggml-org/ggml 2560b6c5, brought the ops by b5781 likely): its",
        "build_moe_ffn ran ggml_silu(gate) and ggml_mul(up, gate) in place (ggml-alloc.c:41-67",
        "at ggml 17733de6: UNARY, MUL) and weighted the down products in place, so GPU 0",
        "holds the input row, the product in up's block and the k outputs, n_embd + k x (n_ff",
        "+ n_embd) floats a token (96 MiB at -ub 512), where the pinned build's fresh",
        "ggml_swiglu_split output and weighted products give 160 (exact on Mixtral on the",
        "H200); and beside the expert the f32 KQ masks a build before PR #23764 casts stay",
        "alive (a graph input). GPU 0's compute: cudab-022 (-ngl 0, no masks on the GPU) 630",
        "+ 96 = 726 of 742 MiB (-2.2 %; +6.5 % by the pinned graph), cudax-002, -003 630 + 96",
        "+ 16 + 32 = 774 of 774 (+4.1 % before), cudax-001, -004 816 + 96 + 32 + 64 = 1008 of",
        "1024 (-1.6 %, as before). Derived, not fitted, but all five are one model: k x (2",
        "n_ff + n_embd), the freed gate's block under the outputs (ggml-alloc.c:153-185, best",
        "fit), fits them too (742, 1024, +2.1 %). The rules part on other models (pinned /",
        "2 n_ff + n_embd / the live set planned, MiB at -ub 512): Mixtral 8x7B 96 / 128 / 80,",
        "Qwen3-30B-A3B 80 / 56 / 48, DeepSeek-V2-Lite 68.5 / 57 / 44.5; a log of such a build",
        "whose expert phase sets the buffer (-fa, a short context) would test it (none found,",
        "gpu31s).",
        "rocm-004 (b5618, an embedding model at -ub 2048, 40960 cells) reads -336.02 MiB: the",
        "f32 KQ mask (2048 x 40960 x 4 B = 320 MiB, which ROCm_Host's 368.02 MiB also holds)",
        "and mean pooling's inp_mean (2048 x 2048 x 4 B = 16 MiB) live beside the logits.",
        "cudab-016 (b7780) and -024 alike: logits + the f32 mask (32768 x 512 x 4 B = 64 MiB)",
        "+ rows. No rule keyed on the build holds it: counting the f32 copy beside the logits in",
        "every build before PR #23764 brings these, rocm-001 to -007 and vulkan-002, -003,",
        "-005, -007 within 6 %, but takes 13 rows now within 3 % to 6-52 % over, of the same",
        "builds (cudab-001 to -003 at b7772, eight builds before b7780; vulkan-001 at b9010 as",
        "vulkan-002): whether the freed copy's hole lies under the logits depends on the",
        "graph's sizes (ggml-alloc's placement), as on the CPU (METHOD.md).",
        "The runtime term (what the GPU runtime holds beside these buffers) is in no row: a",
        "log's buffer lines leave it out. llama.cpp's exit table gives it as `unaccounted`;",
        "validation/runtime-term.json keeps those readings, each with its source, and",
        "tests/runtime_term_test.py holds the term to the Linux ones: ROCm 253-491 MiB per",
        "MI50 at 512-4096 cells, 347 on an RX 6700 XT (131072 cells, f16 cache), 242 on an RX",
        "7900 XT (496 MiB fitted on these three machines), 1320-5024 with a quantized cache at",
        "63500-66000 cells in builds before PR #23907 (ggml-cuda's legacy pool kept flash",
        "attention's f16 copies of the cache: not held); Vulkan 416-475 MiB after the load on",
        "a discrete RTX 3060 Ti, 13 on an RX 580 beside it, 152 per process (nvidia-smi) on an",
        "RTX 3090, -79 to +64 beside its host buffers on a Strix Halo APU (480 MiB fitted; not",
        "held: the cards that drive a desktop, RX 6700 XT 474-742, the RTX 3090's own exit",
        "tables 268-731); Metal 0; CUDA 164-456 (the H200's 672 fitted).",
        "",
        f"Logs: {len(logs) + len(unread)}; counted: {len(logs)}; every GPU's weights, KV and "
        f"compute read whole: {whole} of {len(logs)} ({100 * whole / max(len(logs), 1):.0f} %); "
        f"each of the other {len(logs) - whole} has what was not read named below, line and "
        f"reason.",
        "",
        "| backend | device | term | rows | median abs error | worst | worst abs MiB | within 10 % |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for backend in backends:
        for kind in ("gpu", "host"):
            for term in ("weights", "kv_cache", "recurrent_state", "compute", "output", "total",
                         "total_planned"):
                s = summary(logs, backend, kind, term)
                if s is None:
                    continue
                lines.append(f"| {backend} | {kind} | {term} | {s['n']} | "
                             f"{100 * s['median']:.1f} % | {100 * s['worst']:+.1f} % | "
                             f"{s['worst_mib']:.0f} | {100 * s['within10']:.0f} % |")
    lines += ["", "## Logs left out", ""]
    lines += [f"- `{n}`: {why}" for n, why in unread] or ["(none)"]
    lines += ["", "## Logs not read whole", "",
              "What `canitrun verify` could not read or plan per device in each, as it names it:",
              "a per-device note, a memory line left unread (its number in the log and why), or",
              "a GPU's term the log prints no line for.", ""]
    for log in logs:
        if log["whole"]:
            continue
        lines.append(f"- `{log['name']}`:")
        lines += [f"  - {r}" for r in log["reasons"]] or ["  - (nothing named)"]
    lines += ["", "## Per log", "",
              "| log | backend | fork | read whole | largest GPU compute error |",
              "| --- | --- | --- | --- | ---: |"]
    for log in logs:
        compute = [rel(e, a) for k, t, e, a in log["rows"] if k == "gpu" and t == "compute"]
        worst = f"{100 * max(compute, key=abs):+.1f} %" if compute else "—"
        lines.append(f"| `{log['name']}` | {log['backend']} | {'yes' if log['fork'] else 'no'} "
                     f"| {'yes' if log['whole'] else 'no'} | {worst} |")
    return "\n".join(lines) + "\n"


def bounds_failures(logs, unread, medians):
    failures = 0
    for (backend, kind, term), (median, within) in (BOUNDS.items() if medians else ()):
        s = summary(logs, backend, kind, term)
        if s is None or s["median"] > median or s["within10"] < within:
            print(f"{backend} {kind} {term}: {s} is past the bounds "
                  f"(median <= {median}, within 10 % >= {within})")
            failures += 1
    worst = [(log["name"], e, a) for log in logs for k, t, e, a in log["rows"]
             if k == "gpu" and t == "compute" and abs(rel(e, a)) > WORST_COMPUTE[0]
             and abs(e - a) > WORST_COMPUTE[1]]
    if worst:
        print(f"GPU compute rows worse than max(25 %, 256 MiB): {worst}")
        failures += 1
    worst_total = [(log["name"], t, e, a) for log in logs for k, t, e, a in log["rows"]
                   if k == "gpu" and t in WORST_TOTAL and abs(rel(e, a)) > WORST_TOTAL[t]]
    if worst_total:
        print(f"GPU total rows worse than {WORST_TOTAL}: {worst_total}")
        failures += 1
    silent = [log["name"] for log in logs if not log["whole"] and not log["reasons"]]
    if silent:
        print(f"logs not read whole with nothing named: {silent}")
        failures += 1
    not_read = [u for u in unread if UNPLANNABLE not in u[1]]
    if not_read:
        print(f"logs not read: {not_read}")
        failures += 1
    print(f"{(len(BOUNDS) if medians else 0) + 4 - failures} passed, {failures} failed "
          f"({len(logs)} logs)")
    return failures


def main():
    args = sys.argv[1:]
    if not args or any(a not in ("--check", "--bounds", "--sample") and not a.isdigit()
                       for a in args[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    binary = args[0]
    stride = int(args[args.index("--sample") + 1]) if "--sample" in args else 1
    if stride > 1 and "--bounds" not in args:
        print("--sample goes with --bounds alone: the document needs every log", file=sys.stderr)
        return 2
    logs, unread = collect(binary, stride)
    if "--bounds" in args:
        failures = bounds_failures(logs, unread, medians=stride == 1)
    else:
        failures = 0
    if "--check" in args:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != render(logs, unread):
                print("docs/ACCURACY-GPU.md is out of date: run tools/accuracy/gpu_logs.py "
                      "build/canitrun", file=sys.stderr)
                failures += 1
    elif "--bounds" not in args:
        with open(OUT, "w", encoding="utf-8") as f:
            f.write(render(logs, unread))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
