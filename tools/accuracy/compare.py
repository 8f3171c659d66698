#!/usr/bin/env python3
"""Accuracy harness driver (run by tools/accuracy/run.sh): writes full-size sparse GGUF files of
database models (make_gguf), loads them with llama.cpp's no_alloc simulation (llama_probe, the
prebuilt libllama of node-llama-cpp@$NLC_VERSION = llama.cpp $LLAMA_COMMIT, both set by run.sh;
CPU backend), runs
`canitrun FILE.gguf --engine llama.cpp --backend cpu --json` with the same settings and writes
docs/ACCURACY.md: per model and setting, estimate vs llama.cpp per term, error in MiB and %; then
the CPU_REPACK rows and the MTP draft context's rows (MTP_MODELS)."""

import json
import os
import subprocess
import sys

MIB = 1048576.0

# The pinned build, named once in run.sh.
NLC_VERSION = os.environ["NLC_VERSION"]
LLAMA_COMMIT = os.environ["LLAMA_COMMIT"]

# (model id, quantization): one or more per llama.cpp architecture.
MODELS = [
    ("llama-3.1-8b", "Q4_K_M"),            # llama, dense GQA
    ("llama-3.3-70b", "Q4_K_M"),           # llama, 70B type rules
    ("qwen2.5-7b", "Q4_K_M"),              # qwen2 (q/k/v biases)
    ("qwen3-8b", "Q8_0"),                  # qwen3 (q/k norms)
    ("qwen3-30b-a3b", "Q4_K_M"),           # qwen3moe
    ("qwen3-next-80b-a3b", "Q4_K_M"),      # qwen3next: Gated DeltaNet hybrid MoE
    ("qwen3.5-35b-a3b", "Q4_K_M"),         # qwen35moe: Gated DeltaNet hybrid MoE
    ("qwen3.5-9b", "Q5_K_M"),              # qwen35: Gated DeltaNet hybrid dense
    ("mimo-v2.6-distill-qwen-9b", "Q4_K_M"),  # qwen35: a fine-tune of Qwen3.5-9B, its shapes
    ("gemma-3-27b", "Q4_K_M"),             # gemma3: sliding window 5:1
    ("gemma-3-1b", "Q8_0"),                # gemma3, small
    ("gemma-2-9b", "Q4_K_M"),              # gemma2: sliding window 1:1
    ("gpt-oss-20b", "MXFP4"),              # gpt-oss: sliding window, MXFP4 experts, sinks
    ("deepseek-v2-lite", "Q4_K_M"),        # deepseek2: MLA without q LoRA
    ("deepseek-v3", "Q2_K"),               # deepseek2: MLA, 671B
    ("mixtral-8x7b", "Q4_K_M"),            # llama with 8 experts (llama-quantize's 8-expert rules)
    ("smollm3-3b", "Q4_K_M"),              # smollm3
    ("olmo-2-13b", "Q4_K_M"),              # olmo2 (full-width q/k norms)
    ("command-r-35b", "Q4_K_M"),           # command-r (parallel block, tied)
    ("command-r-plus-104b", "Q4_K_M"),     # command-r with per-head q/k norms
    ("phi-4-14b", "Q4_K_M"),               # phi3 (fused qkv and gate+up)
    ("granite-4.0-h-small", "Q4_K_M"),     # granitehybrid: Mamba-2 + GQA, MoE
    ("granite-4.0-h-micro", "Q8_0"),       # granitehybrid: Mamba-2 + GQA, dense
    ("granite-3.3-8b", "Q4_K_M"),          # granite (rows of 49159 tokens: odd vocab)
    ("command-a-111b", "Q4_K_M"),          # cohere2: sliding window 3:1
    ("qwen2.5-vl-7b", "Q4_K_M"),           # qwen2vl (text decoder)
    ("qwen3-vl-8b", "Q4_K_M"),             # qwen3vl (text decoder)
    ("qwen3-vl-30b-a3b", "Q4_K_M"),        # qwen3vlmoe (text decoder)
    ("mistral-small-3.2-24b", "Q4_K_M"),   # llama layout (Mistral Small)
    ("phi-3.5-mini", "Q4_K_M"),            # phi3 with LongRoPE factors
    ("nemotron-h-8b", "Q4_K_M"),           # nemotron_h: Mamba-2, attention and MLP blocks
    ("nemotron-3-nano-30b-a3b", "Q4_K_M"), # nemotron_h_moe: Mamba-2, attention and MoE blocks
    ("kimi-linear-48b-a3b", "Q4_K_M"),     # kimi-linear: Kimi Delta Attention + MLA, MoE
    ("deepseek-v3.2", "Q2_K"),             # deepseek32: MLA + the DSA indexer's key cache
    ("glm-5", "Q2_K"),                     # glm-dsa: deepseek32's tensors with exp_probs_b
    ("lfm2-1.2b", "Q4_K_M"),               # lfm2: short convolutions + GQA
    ("lfm2-8b-a1b", "Q4_K_M"),             # lfm2moe: the same with sigmoid-routed experts
    ("olmo-3-7b", "Q4_K_M"),               # olmo2 with OLMo 3's sliding window 3:1
    ("exaone-4.0-32b", "Q4_K_M"),          # exaone4: sliding window 3:1, post norms only
    ("seed-oss-36b", "Q4_K_M"),            # seed_oss: q/k/v biases
    ("glm-4-9b-0414", "Q4_K_M"),           # glm4: fused gate+up, q/k/v biases
    ("minimax-m2", "Q2_K"),                # minimax-m2: q/k norms over all heads, 256 experts
    ("hunyuan-a13b", "Q4_K_M"),            # hunyuan-moe: routed + shared experts
    ("phi-3.5-moe", "Q4_K_M"),             # phimoe: LayerNorm biases, LongRoPE factors
    ("glm-4.5-air", "Q4_K_M"),             # glm4moe: q/k norms and biases, shared expert
    ("ernie-4.5-21b-a3b", "Q4_K_M"),       # ernie4_5-moe: dense lead, routed + shared experts
    ("phi-4-mini", "Q4_K_M"),              # phi3 with partial rotary LongRoPE factors, tied
    ("llama-4-scout-17b-16e", "Q4_K_M"),   # llama4: chunked attention 3:1, every layer MoE
    ("llama-4-maverick-17b-128e", "Q2_K"), # llama4: MoE every other layer, dense between
    ("mimo-v2-flash", "Q2_K"),             # mimo2: KV heads per layer, sinks on sliding layers
    ("mimo-v2.6-flash-rl", "Q2_K"),        # mimo2 with one fused attn_qkv per layer
    ("mimo-v2.6-pro-rl", "Q2_K"),          # mimo2 fused, 70 layers, 8 KV heads on every layer
    ("jamba-1.5-mini", "Q4_K_M"),          # jamba: Mamba-1 + attention 7:1, MoE every other
    ("falcon-h1-1.5b", "Q4_K_M"),          # falcon-h1: attention and Mamba-2 in every layer
    ("falcon-h1-0.5b", "Q8_0"),            # falcon-h1, small
    ("step-3.5-flash", "Q2_K"),            # step35: query heads per layer, head-wise gate
    ("gemma-3n-e4b", "Q4_K_M"),            # gemma3n: per-layer inputs, AltUp, LAuReL, KV reuse
    ("gemma-4-e2b", "Q4_K_M"),             # gemma4: per-layer inputs, double-wide shared FFNs
    ("gemma-4-26b-a4b", "Q4_K_M"),         # gemma4: dense MLP beside fused experts, K = V
    ("gemma-4-31b", "Q4_K_M"),             # gemma4: 512-wide global heads, K = V
    ("olmo-3-32b", "Q4_K_M"),              # olmo2: OLMo 3 32B, GQA with the 3:1 window
    ("granite-4.0-h-1b", "Q8_0"),          # granitehybrid with its attention layers placed
    ("minimax-m3", "Q2_K"),                # minimax-m3: MSA indexer cache (K + unused V), F32 indexer
    ("glm-5.2", "Q2_K"),                   # glm-dsa with IndexShare: an indexer on 21 of 78 layers
    ("deepseek-v4-flash", "Q2_K"),         # deepseek4: raw window + compressed caches, indexer, hyper-connections
    ("qwen3.8-27b", "Q4_K_M"),             # qwen35: Qwen 3.8 27B (Qwen 3.5's dense hybrid)
    ("qwen3.8-2.4t-a95b", "Q2_K"),         # qwen35moe: 2.4T, 128 V heads, 512 experts of 2048
    ("glm-5.3", "Q2_K"),                   # glm-dsa: GLM-5.2's layout (IndexShare)
    ("deepseek-v4-flash-0731", "Q2_K"),    # deepseek4: V4-Flash's official release
    ("deepseek-v4-pro-0813", "Q2_K"),      # deepseek4: V4-Pro's official release, 61 layers, 384 experts
    ("kimi-k2.6", "Q2_K"),                 # deepseek2: Kimi K2.5's layout
    ("kimi-k2.7-code", "Q2_K"),            # deepseek2: Kimi K2.5's layout
    ("granite-4.2-3b", "Q4_K_M"),          # granite with its own output head (4.1 3B's is tied)
    ("granite-4.2-8b", "Q4_K_M"),          # granite: Granite 4.2 8B, own output head
    ("granite-4.2-30b", "Q4_K_M"),         # granite: 64 layers, FFN 32768, own output head
    ("gemma-4-12b", "Q4_K_M"),             # gemma4 (gemma4_unified converts to it), dense
    ("kimi-k3", "Q2_K"),                   # kimi-k3: KDA + gated MLA, latent MoE, residual scores
    ("qwen3.8-flash-next", "Q2_K"),        # qwen4exp: low-rank hyper-connections, QSA indexer, n-gram table
    ("hy4-preview", "Q2_K"),               # hy_v4: gated MLA with sinks, iHC, an indexer on 21 of 78 layers
    ("minicpm5-2b", "Q4_K_M"),             # llama: MiniCPM5 2B, untied, 16 q / 2 KV heads
    ("deepseek-v4-flash-vision-exp", "Q2_K"),  # deepseek4 with the image routing bias on 43 layers
    ("muse-glimmer-30b", "Q4_K_M"),        # muse-glimmer: sliding 3:1 (NoPE full), attn_gate, sandwich norms
    ("nemotron-3.5-lightning-30b-a3b", "Q4_0"),  # nemotron_h_moe, Nano's layout
    ("spark-x2.5-4b", "Q4_K_M"),           # spark2_5: fused qkv, head-wise attn_gate, sliding 3:1
    ("mistral-small-4-119b", "Q4_K_M"),    # mistral4: deepseek2's MLA (320 / 256), stacked gate_up experts
    ("dots3-note-prev", "Q2_K"),           # dots3note: full DSA MLA + sliding MLA (own heads, latent), head-wise gate
]

# (model id, quantization): files loaded as llama-server loads them by default on a machine
# without a GPU (use_extra_bufts: the CPU backend's CPU_REPACK buffer type takes the weights this
# CPU has an interleaved kernel for; src/core/engines/cpu_repack.cpp), against canitrun's
# cpu_repack term of the same file on a machine without a GPU. canitrun plans an AVX2 CPU; these
# types repack alike on AVX2 and AVX-512 (Q2_K, repacked on AVX-512 only, is left out).
REPACK_MODELS = [
    ("llama-3.1-8b", "Q4_0"),              # Q4_0 by 8 rows; output Q6_K (no x86 kernel)
    ("llama-3.1-8b", "IQ4_NL"),            # IQ4_NL by 8 rows
    ("llama-3.1-8b", "Q4_K_M"),            # Q4_K repacked, Q6_K not
    ("qwen3-30b-a3b", "Q4_0"),             # 3-D experts (MUL_MAT_ID)
    ("gpt-oss-20b", "MXFP4"),              # MXFP4 experts; the rest Q8_0 (no x86 kernel)
    ("deepseek-v2-lite", "Q4_0"),          # MLA's 3-D attn_k_b / attn_v_b (MUL_MAT)
]
REPACK_SETTING = "4096:512:1:on:f16:f16"

# (model id, quantization): files written with the model's MTP (nextn) block (make_gguf ... mtp,
# as the pinned converter keeps it), loaded with it (llama_probe --mtp: load_mtp, then the MTP
# draft context llama-server makes on the target for --spec-type draft-mtp), against canitrun's
# `mtp` term of the same file with --mtp on a machine without a GPU (server_terms.cpp mtp_bytes).
MTP_MODELS = [
    ("qwen3.5-9b", "Q5_K_M"),              # qwen35: the MTP block is a full-attention layer
    ("glm-4.5-air", "Q4_K_M"),             # glm4moe: MoE block with its own embedding and head
    ("nemotron-3.5-lightning-30b-a3b", "Q4_0"),  # nemotron_h_moe: attention + MoE in one block
]

# ACCURACY_ONLY=model,model runs those models alone and writes their table to
# $TMPDIR/canitrun-accuracy-only.md, not docs/ (a check while adding an architecture; the
# committed table comes from the whole list).
if os.environ.get("ACCURACY_ONLY"):
    MODELS = [m for m in MODELS if m[0] in os.environ["ACCURACY_ONLY"].split(",")]
    REPACK_MODELS = [m for m in REPACK_MODELS if m[0] in os.environ["ACCURACY_ONLY"].split(",")]
    MTP_MODELS = [m for m in MTP_MODELS if m[0] in os.environ["ACCURACY_ONLY"].split(",")]

# n_ctx:n_ubatch:n_seq:fa:type_k:type_v
SETTINGS = [
    "4096:512:1:on:f16:f16",
    "32768:512:1:on:f16:f16",
    "131072:512:1:on:f16:f16",
    "32768:512:1:off:f16:f16",
    "32768:512:1:on:q8_0:q8_0",
    "32768:2048:1:on:f16:f16",
    "32768:512:4:on:f16:f16",
]

TERMS = ["weights", "kv_cache", "recurrent_state", "compute", "output"]

# Every GGUF file type the database lists, checked with llama.cpp's own type rules.
FTYPES = ["FP32", "BF16", "FP16", "Q8_0", "Q6_K", "Q5_K_M", "Q5_K_S", "Q4_K_M", "Q4_K_S",
          "Q3_K_L", "Q3_K_M", "Q3_K_S", "Q2_K", "Q2_K_S", "Q5_1", "Q5_0", "Q4_1", "Q4_0",
          "IQ4_NL", "IQ4_XS", "IQ3_M", "IQ3_S", "IQ3_XS", "IQ3_XXS", "IQ2_M", "IQ2_S", "IQ2_XS",
          "IQ2_XXS", "IQ1_M", "IQ1_S", "TQ2_0", "TQ1_0", "MXFP4"]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def estimate(canitrun, path, setting):
    """canitrun's llama.cpp profile of the file llama.cpp loaded: --backend names a backend for a
    GGUF file (a database model's backend follows its --gpu)."""
    ctx, ub, seq, fa, tk, tv = setting.split(":")
    # llama_probe leaves n_outputs_max at the library's default (every token of the batch), so
    # canitrun plans that reservation, not llama-server's (its default).
    out = run([canitrun, path, "--engine", "llama.cpp", "--backend", "cpu",
               "--ctx", ctx, "--ubatch", ub, "--parallel", seq, "--flash-attn", fa,
               "--cache-type-k", tk, "--cache-type-v", tv, "--reserve-outputs", "all", "--json"])
    terms = {t["name"]: t["bytes"] for t in json.loads(out)["estimate"]["terms"]}
    return {
        "weights": terms["weights"] + terms["token_embd"],
        "kv_cache": terms["kv_cache"],
        "recurrent_state": terms["recurrent_state"],
        "compute": terms["compute"],
        "output": terms["output"],
    }


def ram_term(canitrun, path, setting, work, name, extra=()):
    """canitrun's RAM term `name` of the file on a machine without a GPU: --gpu auto reads an
    empty probe recording (no GPU found, whatever this machine holds); the plan of a file is
    llama.cpp's (--engine answers for one GPU, so it is left out)."""
    ctx, ub, seq, fa, tk, tv = setting.split(":")
    no_gpu = os.path.join(work, "no-gpu")
    os.makedirs(no_gpu, exist_ok=True)
    out = subprocess.run(
        [canitrun, path, "--gpu", "auto", "--ram", "4096", "--ctx", ctx, "--ubatch", ub, "--parallel", seq, "--flash-attn", fa,
         "--cache-type-k", tk, "--cache-type-v", tv, "--json", *extra],
        capture_output=True, text=True, env=dict(os.environ, CANITRUN_PROBE_RECORDING=no_gpu))
    # exit status 1: the model does not fit on GPUs whole, as on any machine without one
    if out.returncode not in (0, 1):
        raise SystemExit(f"compare.py: canitrun failed on {path}: {out.stderr.strip()}")
    plan = json.loads(out.stdout)
    selected = plan["hardware"]["selected"]
    if selected.get("gpus") or plan["rule"] != "llama.cpp":
        raise SystemExit(f"compare.py: the {name} rows need llama.cpp's plan without a GPU")
    return sum(r["load_bytes"] for r in selected["ram"]["resident"] if r["name"] == name)


def repack_estimate(canitrun, path, setting, work):
    """canitrun's cpu_repack term of the file on a machine without a GPU."""
    return ram_term(canitrun, path, setting, work, "cpu_repack")


MTP_PARTS = ["mtp_weights_bytes", "mtp_kv_cache_bytes", "mtp_compute_bytes", "mtp_output_bytes"]


def mtp_rows(make_gguf, probe, canitrun, bins, work):
    """(model, quant, setting, llama.cpp's MTP buffers by part or None, canitrun's mtp term)."""
    rows = []
    for model, quant in MTP_MODELS:
        path = os.path.join(work, f"{model}-{quant}-mtp.gguf")
        run([make_gguf, model, quant, path, "mtp"])
        for line in run([probe, bins, path, "--mtp"] + SETTINGS).strip().splitlines():
            m = json.loads(line)
            if "error" in m or "mtp_error" in m:
                rows.append((model, quant, m["config"], None, None))
                continue
            est = ram_term(canitrun, path, m["config"], work, "mtp", ["--mtp"])
            rows.append((model, quant, m["config"], {k: m[k] for k in MTP_PARTS}, est))
        os.remove(path)
        print(f"{model} {quant}: MTP rows", file=sys.stderr)
    return rows


def write_mtp(f, rows):
    """The MTP rows, with the main table's tolerance (max(2 %, 64 MiB)); returns the rows over."""
    f.write("\n## MTP draft context: canitrun vs llama.cpp\n\n")
    f.write("llama-server drafting with the model's own multi-token-prediction layers "
            "(`--spec-type draft-mtp`) loads them (load_mtp) and makes an MTP draft context on "
            "the target model (common/speculative.cpp at 0ad4a86: the target's n_ctx, the "
            "draft's f16 cache, n_parallel outputs). Each row: the file written with its MTP "
            "block, loaded with it (llama_probe --mtp), the MTP layers' weights (the tensors a "
            "plain load skips) and that context's KV, compute and output buffers, against the "
            "`mtp` term canitrun adds with `--mtp` to its plan of the same file without a GPU. "
            "Cells: MiB; the total's error against max(2 %, 64 MiB). Known gaps: the weights "
            "and the KV cache (f16 whatever the target's type) are exact; the compute buffer is "
            "the one MTP block's graph (mtp_compute.cpp): the larger of its attention (the KQ "
            "mask, and without flash attention the KQ scores, cells x ubatch x heads x 4 B) and "
            "its FFN over the whole ubatch; it reads up to 4 MiB under this backend's where "
            "ggml-alloc keeps the mask beside the FFN (4,096 cells) and for GLM-4.5-Air's MoE "
            "block.\n\n")
    f.write("| model | quant | setting | weights | kv_cache | compute | output | "
            "llama.cpp / canitrun | error |\n")
    f.write("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    over = 0
    for model, quant, cfg, meas, est in rows:
        setting = setting_label(cfg)
        if meas is None:
            f.write(f"| {model} | {quant} | {setting} | llama.cpp failed | | | | | |\n")
            continue
        total = sum(meas.values())
        ok = within_tolerance(est, total)
        over += 0 if ok else 1
        cells = " | ".join(f"{meas[k] / MIB:.2f}" for k in MTP_PARTS)
        f.write(f"| {model} | {quant} | {setting} | {cells} | {total / MIB:.2f} / "
                f"{est / MIB:.2f} | {(est - total) / MIB:+.2f} MiB "
                f"({pct(est - total, total):+.2f} %){'' if ok else ' **over**'} |\n")
    return over


def repack_rows(make_gguf, probe, canitrun, bins, work):
    """(model, quant, llama.cpp's CPU_REPACK bytes, canitrun's, weights, CPU features)."""
    rows = []
    for model, quant in REPACK_MODELS:
        path = os.path.join(work, f"{model}-{quant}-repack.gguf")
        run([make_gguf, model, quant, path])
        m = json.loads(run([probe, bins, path, "--repack", REPACK_SETTING]).strip())
        if "error" in m:
            raise SystemExit(f"compare.py: llama.cpp failed on {model} {quant} with repack")
        rows.append((model, quant, m["repack_bytes"],
                     repack_estimate(canitrun, path, REPACK_SETTING, work), m["model_bytes"],
                     m["cpu_features"]))
        os.remove(path)
        print(f"{model} {quant}: repack {rows[-1][2]} / {rows[-1][3]}", file=sys.stderr)
    return rows


def write_repack(f, rows):
    features = rows[0][5] if rows else ""
    f.write("\n## CPU_REPACK: canitrun vs llama.cpp\n\n")
    f.write("llama-server on a machine without a GPU keeps a second, repacked copy of the matrix "
            "weights its CPU has an interleaved kernel for (the CPU backend's CPU_REPACK buffer "
            "type; `--no-repack` turns it off), while the file stays mapped. Each row: the file "
            "loaded with the extra buffer types on (llama_probe --repack, ctx 4096), the "
            "CPU_REPACK buffer's bytes from llama_get_memory_breakdown (with no_alloc the log "
            "prints 0.00 MiB), against the `cpu_repack` term canitrun adds to RAM in its plan of "
            "the same file without a GPU. canitrun assumes an AVX2 CPU; the CPU backend llama.cpp "
            f"loaded here has: {features}. Q2_K, repacked on AVX-512 only, is left out. "
            "llama-server's prompt cache (`--cache-ram`) and context checkpoints "
            "(`--ctx-checkpoints`) are the server's own copies, made while it serves and not "
            "allocated by libllama, so this harness, which loads libllama alone, cannot "
            "measure them.\n\n")
    f.write("| model | quant | weights, MiB | CPU_REPACK llama.cpp / canitrun, bytes | error |\n")
    f.write("| --- | --- | --- | --- | --- |\n")
    for model, quant, meas, est, weights, _ in rows:
        f.write(f"| {model} | {quant} | {weights / MIB:.2f} | {meas} / {est} | "
                f"{(est - meas) / MIB:+.2f} MiB ({pct(est - meas, meas):+.2f} %) |\n")


def measured(row):
    return {
        "weights": row["model_bytes"],
        "kv_cache": row["kv_cache_bytes"],
        "recurrent_state": row["recurrent_state_bytes"],
        "compute": row["compute_bytes"],
        "output": row["output_bytes"],
    }


def setting_label(cfg):
    """A setting ("ctx:ubatch:seq:fa:type_k:type_v") as the tables name it."""
    ctx, ub, seq, fa, tk, _ = cfg.split(":")
    return f"ctx {ctx}, ubatch {ub}, seq {seq}, FA {fa}, KV {tk}"


def within_tolerance(estimate, measured_total):
    """The harness's tolerance on a total: max(2 %, 64 MiB)."""
    return abs(estimate - measured_total) <= max(0.02 * measured_total, 64 * MIB)


def pct(err, ref):
    return 100.0 * err / ref if ref else 0.0


GPU_PARAGRAPH_START = "\n**On GPUs:**"
GPU_PARAGRAPH_END = "## Tensor types:"


def kept_gpu_paragraph(path):
    """The "On GPUs" paragraph as the file has it: gpu_logs.py's figures are written there by
    hand from its report, and this harness measures only the CPU backend, so it carries the
    paragraph over rather than replace it with a shorter one of its own."""
    fallback = ("\n**On GPUs:** [ACCURACY-GPU.md](ACCURACY-GPU.md) sets canitrun's plan, device by "
                "device, beside the\nbuffers of published llama.cpp logs from real CUDA, ROCm, "
                "Metal, Vulkan and SYCL runs\n(`validation/llama-logs/`, regenerated by "
                "`tools/accuracy/gpu_logs.py`; CI checks it is up to\ndate and a test holds its "
                "medians under bounds).\n\n")
    try:
        text = open(path).read()
    except OSError:
        return fallback
    start = text.find(GPU_PARAGRAPH_START)
    end = text.find(GPU_PARAGRAPH_END, start)
    if start < 0 or end < 0:
        return fallback
    return text[start:end]


def main():
    make_gguf, probe, canitrun, bins, work, out_md, quant_check = sys.argv[1:8]
    if os.environ.get("ACCURACY_ONLY"):
        out_md = os.path.join(os.environ.get("TMPDIR", "/tmp"), "canitrun-accuracy-only.md")
        print(f"ACCURACY_ONLY: the table goes to {out_md}", file=sys.stderr)
    types = []  # (model, checked, mismatches, examples)
    for model, _ in MODELS:
        checked = mismatched = 0
        examples = []
        path = os.path.join(work, f"{model}-types.gguf")
        for ftype in FTYPES:
            run([make_gguf, model, ftype, path, "no-imatrix"])
            r = json.loads(run([quant_check, bins, path]))
            os.remove(path)
            checked += r["checked"]
            mismatched += r["mismatches"]
            if r["mismatches"]:
                examples.append(f"{ftype}: {r['examples']}")
        types.append((model, checked, mismatched, "; ".join(examples)))
        print(f"{model}: types checked {checked}, mismatches {mismatched}", file=sys.stderr)
    rows = []
    for model, quant in MODELS:
        path = os.path.join(work, f"{model}-{quant}.gguf")
        run([make_gguf, model, quant, path])
        lines = run([probe, bins, path] + SETTINGS).strip().splitlines()
        for line in lines:
            m = json.loads(line)
            if "error" in m:
                rows.append((model, quant, m["config"], None, None))
                continue
            rows.append((model, quant, m["config"], measured(m),
                         estimate(canitrun, path, m["config"])))
        os.remove(path)
        print(f"{model} {quant}: {len(lines)} settings", file=sys.stderr)
    repacked = repack_rows(make_gguf, probe, canitrun, bins, work)
    mtp = mtp_rows(make_gguf, probe, canitrun, bins, work)

    worst = (0.0, 0.0, "")
    worst_mib = (0.0, 0.0, "")
    term_worst = {t: (0.0, 0.0, "") for t in TERMS}
    fails = 0
    body = []
    for model, quant, cfg, meas, est in rows:
        setting = setting_label(cfg)
        if meas is None:
            body.append(f"| {model} | {quant} | {setting} | llama.cpp failed | | | | | |")
            continue
        cells = []
        for t in TERMS:
            err = (est[t] - meas[t]) / MIB
            cells.append(f"{meas[t] / MIB:.2f} / {est[t] / MIB:.2f} ({err:+.2f})")
            if abs(err) > abs(term_worst[t][0]):
                term_worst[t] = (err, pct(est[t] - meas[t], meas[t]), f"{model} {quant}, {setting}")
        mt = sum(meas.values())
        et = sum(est.values())
        err_mib = (et - mt) / MIB
        err_pct = pct(et - mt, mt)
        ok = within_tolerance(et, mt)
        fails += 0 if ok else 1
        if abs(err_pct) > abs(worst[1]):
            worst = (err_mib, err_pct, f"{model} {quant}, {setting}")
        if abs(err_mib) > abs(worst_mib[0]):
            worst_mib = (err_mib, err_pct, f"{model} {quant}, {setting}")
        body.append(f"| {model} | {quant} | {setting} | " + " | ".join(cells) +
                    f" | {mt / MIB:.1f} / {et / MIB:.1f} | {err_mib:+.1f} MiB ({err_pct:+.2f} %)"
                    f"{'' if ok else ' **over**'} |")

    gpu_paragraph = kept_gpu_paragraph(out_md)
    with open(out_md, "w") as f:
        f.write("# Accuracy of `--engine llama.cpp`\n\n")
        f.write("Generated by `tools/accuracy/run.sh`; do not edit by hand.\n\n")
        f.write("Every row: a full-size GGUF file of a database model written by the harness "
                "(tensor names, shapes and types from canitrun's tensor layout and llama-quantize "
                f"rules; data a sparse hole), loaded by llama.cpp {LLAMA_COMMIT} (the prebuilt "
                f"libllama of node-llama-cpp@{NLC_VERSION}) with `no_alloc` on its CPU backend, "
                "against "
                "`canitrun FILE.gguf --engine llama.cpp --backend cpu --json` on the same file "
                "with the same settings (its header read back as a model, its tensors as the "
                "weights). Cells: llama.cpp / canitrun (error), MiB. llama.cpp logs sizes in "
                "MiB with two decimals, so 0.01 MiB is its resolution; weights are "
                "llama_model_size() in bytes.\n\n")
        f.write(f"Models: {len(MODELS)}; rows: {len(rows)}; rows whose total is off by more "
                f"than max(2 %, 64 MiB): {fails}.\n\n")
        f.write(f"Worst total in %: {worst[0]:+.1f} MiB ({worst[1]:+.2f} %), {worst[2]}.\n\n")
        f.write(f"Worst total in MiB: {worst_mib[0]:+.1f} MiB ({worst_mib[1]:+.2f} %), "
                f"{worst_mib[2]}.\n\n")
        f.write("Worst error per term:\n\n")
        for t in TERMS:
            e = term_worst[t]
            f.write(f"- {t}: {e[0]:+.2f} MiB ({e[1]:+.2f} %), {e[2]}\n")
        f.write("\nKnown gaps: the compute buffer is a fit (see src/core/engines/llamacpp_engine.cpp), "
                "exact for most dense and MoE models at one sequence; it misses up to ~32 MiB "
                "with several sequences on some architectures, on DeepSeek-V2-Lite, Phi-4, "
                "Qwen3-Next and Granite 4.0-H, and at ubatch 2048 128 MiB on Qwen3-Next and "
                "Kimi-Linear (the KQ mask's hole, freed by the last attention layer, which "
                "ggml-alloc's best fit leaves under the routed sum; the routed experts' sum above the last layer's outputs, "
                "moe_sum_floats, is counted: Hunyuan-A13B, Ernie 4.5 and DeepSeek-V2-Lite are "
                "within 1 MiB there, and so is the row a shared expert keeps under the routed "
                "output, GLM-4.5-Air and Llama 4, or that a graph picking its outputs after the "
                "output norm adds, Gemma 4 31B, gpt-oss and Step-3.5-Flash); on Gemma 4 E2B up "
                "to ~126 MiB (its logits phase holds more than the fit knows); on Gemma 4 12B -105 MiB at "
                "131072 tokens (a hole, every live tensor counted: the global layers' 128 MiB "
                "mask, freed by the last layer, is split by its FFN output and the logits go "
                "above it); on the DeepSeek Sparse Attention models (DeepSeek V3.2, "
                "GLM-5, 5.1, 5.2, 5.3) from -72 MiB (V3.2 at ubatch 2048) to +128 MiB (GLM-5.x "
                "at ubatch 2048; GLM's first, dense layer peaks lower than the MLA fit)"
                "; dots3-note Preview (dots3note: the DSA MLA layers beside sliding MLA ones) with flash attention from -160 MiB (ubatch 2048) to +40 MiB (the sliding layers' own attention phase is not in the fit; without flash attention within 0.1 MiB); MiniMax-M3's "
                "MSA prefill fit errs high by up to 230 MiB at ubatch 2048, DeepSeek-V4-Pro's by "
                "up to 150 MiB; Kimi K2.6 / K2.7 (deepseek2, 384 experts) miss up to 18 MiB at "
                "131072 cells (an MLA layer's ffn_inp under the routed output is counted), Qwen 3.8 27B and 2.4T-A95B up to 128 MiB at 131072 tokens; Qwen3.8-Flash-Next (qwen4exp) +14 MiB without flash attention at 32768 cells (its QSA indexer's peak, counted at the first QSA layer, qsa_phase.cpp, falls at a later one, into holes) and -16 to +20 MiB where the logits' phase sets the buffer. GPU backends add their own compute padding and the runtime "
                "overhead, which this CPU measurement cannot see: tools/accuracy/cuda.sh measured "
                "them on an NVIDIA H200 on 2026-12-04 (validation/cuda-h200/: the CUDA runtime "
                "term and GPU 0's compute buffer with experts in RAM are set from it, and "
                "tests/cuda_h200_test.py holds them to it).\n\n")
        f.write(gpu_paragraph)
        total_checked = sum(t[1] for t in types)
        total_mismatched = sum(t[2] for t in types)
        f.write("## Tensor types: canitrun's llama-quantize rules vs llama.cpp's\n\n")
        f.write(f"For each model and each of the {len(FTYPES)} GGUF file types the database lists, "
                "the types canitrun gives every quantizable tensor (written into the GGUF "
                "by make_gguf, without an importance matrix) against what llama.cpp's own "
                "rule code returns for the same tensors of the same loaded model "
                "(llama_quant_compute_types, src/llama-ext.h; tools/accuracy/quant_check.cpp). "
                f"Tensor choices checked: {total_checked}; different: {total_mismatched}.\n\n")
        f.write("| model | tensor choices checked | different | examples |\n")
        f.write("| --- | --- | --- | --- |\n")
        for model, checked, mismatched, examples in types:
            f.write(f"| {model} | {checked} | {mismatched} | {examples} |\n")
        f.write("\n## Buffers: canitrun vs llama.cpp\n\n")
        f.write("| model | quant | setting | weights | kv_cache | recurrent_state | compute | "
                "output | total | total error |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
        f.write("\n".join(body) + "\n")
        write_repack(f, repacked)
        mtp_over = write_mtp(f, mtp)
    print(f"wrote {out_md}: {len(rows)} rows, {fails} over tolerance; worst {worst}; "
          f"MTP rows {len(mtp)}, {mtp_over} over", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
