#!/usr/bin/env python3
"""The accuracy harness's CUDA comparison (run by tools/accuracy/cuda.sh on the GPU machine, or
here on the files that came back): reads cuda_probe's JSON lines (llama.cpp's CUDA buffers and the
GPU's used memory per model and setting) and canitrun's estimates for the same files and
settings (`canitrun FILE.gguf --engine llama.cpp --backend cuda --json`), prints per term
llama.cpp / canitrun (error) and the fit of the two terms a CPU measurement cannot see: the CUDA
runtime (what the process holds on the GPU beyond llama.cpp's buffers: the CUDA context, cuBLAS,
the CUDA pool, graphs, kernels) and the CUDA compute buffer.

usage: cuda_compare.py PATH... [--md OUT.md] [--reestimate CANITRUN MAKE_GGUF]
  PATH: a folder holding cuda_probe.jsonl and canitrun.jsonl (as cuda.sh leaves $OUT), or one of
  those files; later paths win for the same model and setting (a second run merges in).
  --md: also write the section as Markdown (for docs/ACCURACY.md).
  --reestimate: ignore the recorded estimates and ask this canitrun again, on GGUF files this
  make_gguf writes again (sparse, deleted as it goes): the measurements stay valid while
  canitrun's CUDA terms change.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

MIB = 1048576.0


def read_jsonl(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                print(f"{path}:{n}: not JSON, skipped (a run stopped mid-line?)", file=sys.stderr)
    return rows


def load(paths):
    models, contexts, estimates, decodes = {}, {}, {}, {}
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += [os.path.join(p, n) for n in ("cuda_probe.jsonl", "canitrun.jsonl")
                      if os.path.exists(os.path.join(p, n))]
        else:
            files.append(p)
    for path in files:
        for r in read_jsonl(path):
            if "canitrun" in r:
                estimates[(r["label"], r["config"])] = r
            elif r.get("kind") == "model":
                models[r["label"]] = r
            elif r.get("kind") == "context":
                contexts[(r["label"], r["config"])] = r
            elif r.get("kind") == "decode":
                decodes[(r["label"], r["config"])] = r
    for key, d in decodes.items():
        if key in contexts and "error" not in contexts[key]:
            contexts[key].update(d)
    return models, contexts, estimates


def reestimate(contexts, canitrun, make_gguf):
    """canitrun's estimates again, on GGUF files written again here."""
    out = {}
    labels = sorted({label for label, _ in contexts})
    with tempfile.TemporaryDirectory() as work:
        for label in labels:
            model, quant = label.split(" ", 1)
            path = os.path.join(work, f"{model}-{quant}.gguf")
            subprocess.run([make_gguf, model, quant, path], check=True, capture_output=True)
            for (lab, config) in contexts:
                if lab != label:
                    continue
                ctx, ub, seq, fa, tk, tv = config.split(":")[:6]
                r = subprocess.run([canitrun, path, "--engine", "llama.cpp", "--backend", "cuda",
                                    "--ctx", ctx, "--ubatch", ub, "--parallel", seq,
                                    "--flash-attn", fa, "--cache-type-k", tk, "--cache-type-v", tv,
                                    # cuda_probe reserves the library's outputs: every token
                                    "--reserve-outputs", "all", "--json"],
                                   capture_output=True, text=True)
                est = json.loads(r.stdout) if r.returncode == 0 else None
                out[(label, config)] = {"label": label, "model": model, "quant": quant,
                                        "config": config, "canitrun": est}
            os.remove(path)
    return out


def is_gpu(name):
    """A device buffer type: CUDA0, CUDA1 ... (CUDA_Host is pinned host memory)."""
    return name.startswith("CUDA") and not name.endswith("_Host")


def gpu_sum(breakdown, fields=("model", "context", "compute")):
    return sum(v[f] for k, v in breakdown.items() if is_gpu(k) for f in fields)


def host_sum(breakdown, field):
    return sum(v[field] for k, v in breakdown.items() if not is_gpu(k))


def measured(model, row):
    """llama.cpp's figures for one setting, in bytes (None: not measured)."""
    bc = row["breakdown_context"]
    decoded = "used_decode" in row  # no decode line: the decodes crashed or were left out
    bd = row["breakdown_decode"] if decoded else bc
    m = {
        "weights": gpu_sum(bc, ("model",)),
        "token_embd": host_sum(bc, "model"),
        "kv_cache": sum(v for k, v in row["kv_buffers"].items() if is_gpu(k)),
        "recurrent_state": sum(v for k, v in row["rs_buffers"].items() if is_gpu(k)),
        "compute": gpu_sum(bc, ("compute",)),
        "output": sum(row["output_buffers"].values()),
        "host_compute": host_sum(bc, "compute"),
        "compute_after_decode": gpu_sum(bd, ("compute",)) if decoded else None,
    }
    # the CUDA context alone: nvidia-smi before the process touched CUDA and after it made its
    # context; cudaMemGetInfo (exact bytes) for everything after that
    s0, s1 = model["smi_start"]["used_mib"], model["smi_ctx"]["used_mib"]
    ctx = (s1 - s0) * MIB if s0 >= 0 and s1 >= 0 else None
    m["cuda_context"] = ctx
    base = model["used_ctx"]
    m["gpu_after_context"] = None if ctx is None else row["used_context"] - base + ctx
    m["gpu_after_decode"] = (None if ctx is None or not decoded else
                             row["used_decode"] - base + ctx)
    m["runtime_after_context"] = (None if ctx is None else
                                  m["gpu_after_context"] - gpu_sum(bc))
    m["runtime"] = None if m["gpu_after_decode"] is None else m["gpu_after_decode"] - gpu_sum(bd)
    sd = row.get("smi_decode", {"used_mib": -1, "apps_mib": -1})
    m["smi_used_delta"] = (sd["used_mib"] - s0) * MIB if sd["used_mib"] >= 0 and s0 >= 0 else None
    m["smi_apps"] = sd["apps_mib"] * MIB if sd["apps_mib"] > 0 else None
    m["freed_back"] = (row["used_freed"] - row.get("used_before", row["used_model"])
                       if decoded else None)
    return m


def estimated(doc):
    terms = {t["name"]: t for t in doc["estimate"]["terms"]}
    e = {name: terms[name]["bytes"] if name in terms else 0
         for name in ("weights", "token_embd", "kv_cache", "recurrent_state", "compute", "output",
                      "runtime")}
    e["gpu_total"] = sum(t["bytes"] for t in doc["estimate"]["terms"] if t["device"] == "gpu")
    return e


def cell(meas, est):
    if meas is None:
        return f"? / {est / MIB:.2f}"
    return f"{meas / MIB:.2f} / {est / MIB:.2f} ({(est - meas) / MIB:+.2f})"


def mib(x, digits=1):
    return "?" if x is None else f"{x / MIB:.{digits}f}"


def setting_text(config):
    f = config.split(":")
    text = f"ctx {f[0]}, ubatch {f[1]}, seq {f[2]}, FA {f[3]}, KV {f[4]}"
    return text + (", filled" if len(f) > 6 and f[6] == "fill" else "")


def linear_fit(xs, ys):
    """Least squares y = a + b x; (a, b, the largest residual)."""
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        a = statistics.mean(ys) if ys else 0.0
        return a, 0.0, max((abs(y - a) for y in ys), default=0.0)
    mx, my = statistics.mean(xs), statistics.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    return a, b, max(abs(y - (a + b * x)) for x, y in zip(xs, ys))


def report(models, contexts, estimates, builds=None):
    lines = []
    w = lines.append
    gpus = sorted({m.get("gpu", "?") for m in models.values()})
    rows = []  # (label, config, meas, est)
    failed = []
    for key in sorted(contexts, key=lambda k: (list(models).index(k[0]) if k[0] in models else 0,
                                               contexts[k].get("n_ctx", 0), k[1])):
        label, config = key
        row = contexts[key]
        est_row = estimates.get(key)
        if "error" in row or label not in models:
            failed.append((label, config, row.get("error", "no model line")))
            continue
        if est_row is None or est_row.get("canitrun") is None:
            failed.append((label, config, "no canitrun estimate"))
            continue
        rows.append((label, config, measured(models[label], row), estimated(est_row["canitrun"]),
                     row))
    for label, m in models.items():
        if "error" in m:
            failed.append((label, "", m["error"]))

    w(f"## CUDA: `--backend cuda` against llama.cpp on {', '.join(gpus)}\n")
    shipped = " and ".join(f"llama.cpp {c} as node-llama-cpp@{v} ships it"
                           for v, c in (builds or [pinned_build()]))
    w(f"Generated by `tools/accuracy/cuda.sh` ({shipped}, built with GGML_CUDA for sm_90) and "
      "`tools/accuracy/cuda_compare.py`; do not edit by "
      "hand. Every row: the harness's full-size GGUF file loaded for real with every layer on the "
      "GPU (n_gpu_layers 999, mmap), a context made, one ubatch and 3 single positions decoded "
      "(\"filled\": ubatches until the cache is full), against `canitrun FILE.gguf --engine "
      "llama.cpp --backend cuda --json` with the same settings. Cells: llama.cpp / canitrun "
      "(error), MiB. weights, kv_cache, recurrent_state and compute are llama.cpp's CUDA0 "
      "buffers (llama_get_memory_breakdown, exact bytes; KV and recurrent split as logged); "
      "token_embd is the host model buffer and output the CUDA_Host output buffer. runtime is what "
      "the process holds on the GPU after the decodes beyond those buffers: the CUDA context "
      "(nvidia-smi's memory.used before the process and once it made its context) plus the growth "
      "cudaMemGetInfo saw since (cuBLAS, the CUDA pool, graphs, kernels loaded lazily), less the "
      "buffers. GPU total: that whole process against canitrun's GPU terms (\"?\": no "
      "nvidia-smi, or no decode).\n")
    if not rows:
        w("No rows measured.\n")
    n_over = 0
    worst = (0.0, 0.0, "")
    body = []
    for label, config, m, e, _ in rows:
        meas_total = m["gpu_after_decode"]
        err = None if meas_total is None else e["gpu_total"] - meas_total
        ok = err is None or abs(err) <= max(0.02 * meas_total, 64 * MIB)
        n_over += 0 if ok else 1
        if err is not None and abs(err) > abs(worst[0]):
            worst = (err, 100.0 * err / meas_total, f"{label}, {setting_text(config)}")
        cells = [cell(m[t], e[t]) for t in ("weights", "token_embd", "kv_cache",
                                            "recurrent_state", "compute", "output", "runtime")]
        total = (f"{mib(meas_total)} / {mib(e['gpu_total'])}" +
                 ("" if err is None else f" | {err / MIB:+.1f} MiB ({100.0 * err / meas_total:+.2f} %)"
                                          f"{'' if ok else ' **over**'}"))
        if err is None:
            total += " | ?"
        body.append(f"| {label.replace(' ', ' | ')} | {setting_text(config)} | " +
                    " | ".join(cells) + f" | {total} |")
    worst_text = (f"{worst[0] / MIB:+.1f} MiB ({worst[1]:+.2f} %), {worst[2]}" if worst[2]
                  else "none measured")
    w(f"Models: {len(models)}; rows: {len(rows)}; rows whose GPU total is off by more than "
      f"max(2 %, 64 MiB): {n_over}; worst GPU total: {worst_text}.\n")
    w("| model | quant | setting | weights | token_embd (host) | kv_cache | recurrent_state | "
      "compute | output (host) | runtime | GPU total | GPU total error |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    lines.extend(body)
    if failed:
        w("")
        w("Not measured: " + "; ".join(f"{l} {setting_text(c) if c else ''}: {why}"
                                       for l, c, why in failed) + ".")

    # the runtime in detail
    w("\n### CUDA runtime and pools, MiB\n")
    w("CUDA context: nvidia-smi's memory.used once the process made its context, less before. "
      "After context / after decode: the process's GPU memory less llama.cpp's CUDA buffers. "
      "Compute at decode: the CUDA0 compute buffer after the decodes, when the scheduler grew it "
      "past its reservation. nvidia-smi: memory.used after the decodes less before the process, "
      "and the compute apps' used_memory.\n")
    w("| model | quant | setting | CUDA context | after context | after decode | compute at decode "
      "| CUDA_Host compute | nvidia-smi used / apps | positions, decode s | back after free |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, config, m, e, row in rows:
        if m["compute_after_decode"] is None:
            grew = "not decoded"
        else:
            d = m["compute_after_decode"] - m["compute"]
            grew = "same" if d == 0 else f"{d / MIB:+.2f}"
        ok = "" if row.get("decode_ok", True) else " (decode failed)"
        back = "?" if m["freed_back"] is None else f"{m['freed_back'] / MIB:+.1f}"
        w(f"| {label.replace(' ', ' | ')} | {setting_text(config)} | {mib(m['cuda_context'])} | "
          f"{mib(m['runtime_after_context'])} | {mib(m['runtime'])} | {grew} | "
          f"{mib(m['host_compute'], 2)} | "
          f"{mib(m['smi_used_delta'], 0)} / {mib(m['smi_apps'], 0)} | "
          f"{row.get('decoded', 0)}, {row.get('decode_s', 0):.1f}{ok} | {back} |")

    # the fits
    w("\n### Fits\n")
    rt = [(row["config"], m["runtime"], m) for _, _, m, _, row in rows
          if m["runtime"] is not None and row.get("decode_ok")]
    if rt:
        vals = [v for _, v, _ in rt]
        ctxs = [m["cuda_context"] for _, _, m in rt]
        est_rt = rows[0][3]["runtime"]
        a, b, res = linear_fit([float(c.split(":")[1]) for c, _, _ in rt], vals)
        w(f"- runtime (after decode): min {min(vals) / MIB:.1f}, median "
          f"{statistics.median(vals) / MIB:.1f}, max {max(vals) / MIB:.1f} MiB over {len(vals)} "
          f"rows; canitrun: {est_rt / MIB:.1f} MiB. Of it the bare CUDA context: "
          f"{min(ctxs) / MIB:.0f} to {max(ctxs) / MIB:.0f} MiB. Against n_ubatch: "
          f"{a / MIB:.1f} MiB + {b / 1024:.2f} KiB x n_ubatch (largest residual "
          f"{res / MIB:.1f} MiB). A constant that covers every row: "
          f"{-(-max(vals) // (16 * MIB)) * 16:.0f} MiB (rounded up to 16 MiB).")
        by_model = {}
        for (label, config, m, _, row) in rows:
            if m["runtime"] is not None and row.get("decode_ok"):
                by_model.setdefault(label, []).append(m["runtime"])
        w("- runtime per model (max over settings, MiB): " + ", ".join(
            f"{k} {max(v) / MIB:.0f}" for k, v in by_model.items()) + ".")
    comp = [(row["config"], m["compute"], e["compute"]) for _, _, m, e, row in rows]
    if comp:
        diffs = [c - ec for _, c, ec in comp]
        a, b, res = linear_fit([float(ec) for _, _, ec in comp], [float(c) for _, c, _ in comp])
        w(f"- compute (CUDA0 against canitrun's compute term): llama.cpp - canitrun from "
          f"{min(diffs) / MIB:+.1f} to {max(diffs) / MIB:+.1f} MiB, median "
          f"{statistics.median(diffs) / MIB:+.1f} MiB; least squares CUDA0 = {a / MIB:.1f} MiB + "
          f"{b:.4f} x canitrun (largest residual {res / MIB:.1f} MiB).")
        groups = {}
        for config, c, ec in comp:
            f = config.split(":")
            groups.setdefault(f"FA {f[3]}, ubatch {f[1]}, seq {f[2]}", []).append((c, ec))
        for g, vs in sorted(groups.items()):
            d = [c - ec for c, ec in vs]
            r = [c / ec for c, ec in vs if ec]
            w(f"  - {g}: {len(vs)} rows, difference {min(d) / MIB:+.1f} to {max(d) / MIB:+.1f} "
              f"MiB" + (f", ratio {min(r):.3f} to {max(r):.3f}" if r else ""))
    grown = [(l, c) for l, c, m, _, _ in rows
             if m["compute_after_decode"] is not None and m["compute_after_decode"] != m["compute"]]
    if grown:
        w(f"- the CUDA0 compute buffer grew at decode in {len(grown)} rows: " +
          "; ".join(f"{l} {setting_text(c)}" for l, c in grown) + ".")
    return "\n".join(lines) + "\n"


def pinned_build():
    """node-llama-cpp's version and the llama.cpp commit tools/accuracy/pin.sh pins (its
    defaults; NLC_VERSION and LLAMA_COMMIT override them, as pin.sh reads them)."""
    nlc, commit = "?", "?"
    pin = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pin.sh")
    with open(pin) as f:
        for line in f:
            for key, env in (("nlc_version", "NLC_VERSION"), ("llama_commit", "LLAMA_COMMIT")):
                prefix = key + '="${' + env + ':-'
                if line.startswith(prefix):
                    value = line[len(prefix):].split("}")[0]
                    value = os.environ.get(env, value)
                    if key == "nlc_version":
                        nlc = value
                    else:
                        commit = value
    return nlc, commit


def measured_build(paths):
    """The build the measurements were made with, from the stamp in each run folder's env.txt
    (cuda.sh writes it: "node-llama-cpp: 3.21.1", "llama.cpp: 80fb11a... (...)"); where no
    folder has one, the build tools/accuracy/pin.sh pins now."""
    found = set()
    for p in paths:
        env = os.path.join(p if os.path.isdir(p) else os.path.dirname(p), "env.txt")
        if not os.path.exists(env):
            continue
        nlc = commit = None
        with open(env) as f:
            for line in f:
                if line.startswith("node-llama-cpp: "):
                    nlc = line.split(": ", 1)[1].strip()
                elif line.startswith("llama.cpp: "):
                    commit = line.split(": ", 1)[1].split()[0][:7]
        if nlc and commit:
            found.add((nlc, commit))
    if not found:
        return [pinned_build()]
    return sorted(found)


def markdown_section(paths, canitrun=None, make_gguf=None):
    """The CUDA section for docs/ACCURACY.md from recorded runs (folders or files as for the
    command line); with canitrun and make_gguf, the estimates are asked again (compare.py can
    append this to the document it writes, from runs committed to the repository)."""
    models, contexts, estimates = load(paths)
    if canitrun and make_gguf:
        estimates = reestimate(contexts, canitrun, make_gguf)
    return report(models, contexts, estimates, measured_build(paths))


def main(argv):
    paths, md, re_est = [], None, None
    i = 0
    while i < len(argv):
        if argv[i] == "--md":
            md = argv[i + 1]
            i += 2
        elif argv[i] == "--reestimate":
            re_est = (argv[i + 1], argv[i + 2])
            i += 3
        elif argv[i] in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    text = markdown_section(paths, *(re_est or ()))
    print(text)
    if md:
        with open(md, "w") as f:
            f.write(text)
        print(f"wrote {md}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
