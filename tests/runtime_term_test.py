#!/usr/bin/env python3
"""The GPU runtime term against llama.cpp's own exit tables (validation/runtime-term.json).

Usage: runtime_term_test.py CANITRUN RUNTIME_TERM_JSON

llama.cpp's `llama_memory_breakdown_print` (PR #15860) prints per device
`total = free + (self = model + context + compute) + unaccounted`: what the device holds beside
llama.cpp's buffers. The test checks that
- every row names its source and quotes its line, and a row the term is not held to says why;
- each quoted table line adds up (total = free + self + unaccounted, self = model + context +
  compute, to 2 MiB: llama.cpp rounds each figure to MiB), and its reading is worked out here
  from the quoted numbers: the exit's unaccounted, or, for `post_load` rows, that less what was
  in use at the load (total - the load line's free) less the quoted host buffers (none on a
  discrete card: they live in system RAM), or, for `per_process` rows, the driver's per-process
  rise (nvidia-smi's, over the figure before the spawn) less the quoted device buffers of the same
  run, which it must not fall short of;
- for every row it is held to (`covers`), the runtime term canitrun plans for that model on that
  GPU (`runtime_bytes`: the term with ggml-cuda's pool; `plan_model_id` / `plan_gpu_id` where the
  source names no model, or where canitrun plans the card under another backend: Vulkan is read
  from an Intel card's plan) is at least the reading;
- the largest readings per backend are the ones worked out by hand below, so the data cannot
  change under the term unnoticed.
"""
import json
import re
import subprocess
import sys

MIB = 1 << 20
TABLE = re.compile(r"(\d+) = +(\d+) \+ \( *(\d+) = +(\d+) \+ +(\d+) \+ +(\d+)\) \+ +(-?\d+)")
LOAD_FREE = re.compile(r"- (\d+) MiB free")
HOST = re.compile(r"_Host +\w+ buffer size = +([\d.]+) MiB")
PER_PROCESS = re.compile(r"\+(\d+) MiB over the pre-spawn figure")
DEVICE_BUFFER = re.compile(r"(\w+\d) +\w+ buffer size = +([\d.]+) MiB")

# Worked by hand from the quoted lines (not from the program):
# - ROCm, 4x MI50 at build 8296, 512 cells (the bench's state1-upstream rep1), ROCm3's line
#   "32752 = 16015 + (16244 = 15949 + 33 + 261) + 491": 16015 + 16244 + 491 = 32750, 2 MiB of
#   rounding short of 32752; the reading is the printed 491 MiB, the largest of the 13 ROCm rows held
#   (the fork's 3x MI50 give 253-254, build 8478's 473-475).
# - ROCm on two more Linux machines, one discrete card each (#31, gpu31u):
#   an RX 6700 XT (flatrick/llama.cpp-hip-gfx1031 rocm.docker.log, 131072 cells, f16 cache)
#   "12272 = 1778 + (10146 = 5753 + 4146 + 246) + 347": 1778 + 10146 + 347 = 12271, and
#   5753 + 4146 + 246 = 10145, each 1 MiB of rounding short: 347 MiB; an RX 7900 XT
#   (hhellbusch/my-ai-workspace's journal, 4096 cells in 4 sequences)
#   "20464 = 382 + (19839 = 18508 + 1024 + 307) + 242": 382 + 19839 + 242 = 20463: 242 MiB.
#   With the MI50s' 491 these are the three machines ROCm's 496 MiB term is fitted on.
# - Vulkan, Strix Halo, b9010, the workstation baseline at np 4: exit "... + 1767", the load line
#   "130416 MiB free" of 131584 (1168 MiB in use), host buffers 515.31 + 3.79 + 16.03 = 535.13 MiB:
#   1767 - 1168 - 535.13 = 63.87 MiB, the largest of the 33. The smallest, the repeat at np 8:
#   "... + 1773", 130271 free (1313 in use), 515.31 + 7.58 + 16.03 = 538.92: -78.92 MiB.
# - CUDA, llama.cpp PR #15860 (3x RTX 4090): "+ 451", "+ 456", "+ 456"; the RTX 4060 Ti: "+ 164".
# - Metal: both M5 Pro exit tables end "+ 0".
# - Vulkan on discrete cards (#31, gpu31v). inferswarm02's RTX 3060 Ti alone, exit
#   "8438 = 4532 + (3091 =  1834 +    1152 +     104) +         814" (4532 + 3091 + 814 = 8437,
#   1834 + 1152 + 104 = 3090, 1 MiB of rounding each), load "8099 MiB free": 8438 - 8099 = 339 in
#   use, 814 - 339 = 475 MiB, the largest Vulkan reading held; the same card in a two-GPU split
#   "+ 755": 416; the RX 580 beside it "8192 = 1254 + ... + 19", "8186 MiB free": 19 - 6 = 13.
#   The RTX 3090's per-process row: nvidia-smi "+19994 MiB over the pre-spawn figure", buffers
#   18163.06 + 512.00 + 598.50 + 568.53 = 19842.09 MiB: 19994 - 19842.09 = 151.91 MiB.
HAND_MAX = {"ROCm": 491.0, "Vulkan": 475.0, "CUDA": 456.0, "Metal": 0.0}
# The largest held reading per machine (one card each; the RX 580 is not in the database, so by
# its name), worked above.
HAND_MACHINES = {
    "ROCm": {"mi50-32gb": 491.0, "rx-6700-xt": 347.0, "rx-7900-xt": 242.0},
    "Vulkan": {"ryzen-ai-max-395-128gb": 63.87, "rtx-3060-ti": 475.0, "rtx-3090": 151.91,
               "AMD Radeon RX 580 8 GB (RADV POLARIS10)": 13.0},
}
# The terms fitted as CUDA's (the largest reading rounded up to a whole 16 MiB), planned as such
# for a dense model with flash attention (no pool): ROCm 491 / 16 = 30.7, so 31 x 16 = 496 MiB;
# Vulkan 475 / 16 = 29.7, so 30 x 16 = 480 MiB (read from an Arc B580's plan: canitrun plans
# Vulkan for Intel cards).
HAND_TERMS = {"ROCm": ("qwen2.5-32b", "rx-7900-xt", 496.0),
              "Vulkan": ("qwen2.5-14b", "arc-b580", 480.0)}
HAND_MIN_POST_LOAD = -78.92
HAND_PER_PROCESS = 151.91
# Rows the term is held to, per backend (the file's count; fewer means rows were lost).
MIN_COVERED = {"ROCm": 13, "Vulkan": 37, "CUDA": 4, "Metal": 2}


def table(quote):
    m = TABLE.search(quote)
    if m is None:
        raise SystemExit(f"no memory-breakdown figures in quote: {quote}")
    return [int(x) for x in m.groups()]


def per_process(row):
    rise = int(PER_PROCESS.search(row["quote"]).group(1))
    buffers = [DEVICE_BUFFER.search(q) for q in row["buffer_quotes"]]
    if not buffers or any(b is None or b.group(1) != row["device"] for b in buffers):
        raise SystemExit(f"{row['source']}: a per-process row needs {row['device']}'s buffers")
    held = sum(float(b.group(2)) for b in buffers)
    if rise < held:
        raise SystemExit(f"{row['source']}: the per-process rise {rise} MiB is short of the "
                         f"{held:.2f} MiB of buffers quoted")
    return rise - held


def reading(row):
    if row["reading"] == "per_process":
        return per_process(row)
    total, free, self_, model, context, compute, unaccounted = table(row["quote"])
    if abs(total - (free + self_ + unaccounted)) > 2 or abs(self_ - (model + context + compute)) > 2:
        raise SystemExit(f"{row['source']}: the quoted line does not add up: {row['quote']}")
    if row["reading"] == "exit":
        return float(unaccounted)
    before = total - int(LOAD_FREE.search(row["load_quote"]).group(1))
    host = sum(float(HOST.search(q).group(1)) for q in row["host_buffer_quotes"])
    return unaccounted - before - host


def planned_runtime(canitrun, row, cache):
    model = row.get("plan_model_id") or row["model_id"]
    gpu = row.get("plan_gpu_id") or row["gpu_id"]
    key = (model, gpu)
    if key not in cache:
        args = [canitrun, model, "--gpu", gpu, "--ctx", "4096", "--flash-attn", "on", "--json"]
        out = subprocess.run(args, capture_output=True, text=True, timeout=60)
        if out.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
        cache[key] = json.loads(out.stdout)["hardware"]["selected"]["gpus"][0]["runtime_bytes"]
    return cache[key]


def main():
    canitrun, path = sys.argv[1], sys.argv[2]
    rows = json.load(open(path, encoding="utf-8"))
    failures, cache = [], {}
    largest, covered, post_load, per_card, processes = {}, {}, [], {}, []
    for row in rows:
        for field in ("backend", "os", "gpu", "build", "source", "quote", "reading", "note"):
            if not row.get(field):
                failures.append(f"a row lacks `{field}`: {row.get('source')}")
        if not str(row.get("source", "")).startswith("https://"):
            failures.append(f"source is not a URL: {row.get('source')}")
        if row["reading"] == "note":
            if row["covers"]:
                failures.append(f"{row['source']}: a note-only row cannot be held to the term")
            continue
        value = reading(row)
        if not row["covers"]:
            continue
        if row["os"] != "Linux" and row["backend"] != "Metal" and not row["os"].startswith("not"):
            failures.append(f"{row['source']}: only Linux rows are held to the term ({row['os']})")
        b = row["backend"]
        covered[b] = covered.get(b, 0) + 1
        largest[b] = max(largest.get(b, value), value)
        card = (b, row["gpu_id"] or row["gpu"])
        if card[1] in HAND_MACHINES.get(b, {}):
            per_card[card] = max(per_card.get(card, value), value)
        if row["reading"] == "post_load":
            post_load.append(value)
        if row["reading"] == "per_process":
            processes.append(value)
        term = planned_runtime(canitrun, row, cache) / MIB
        if term < value:
            failures.append(f"{b} {row['gpu_id']} {row['device']}: term {term:.0f} MiB < "
                            f"{value:.2f} MiB read ({row['source']})")
    for b, want in HAND_MAX.items():
        if abs(largest.get(b, float("nan")) - want) > 0.005:
            failures.append(f"{b}: the largest reading is {largest.get(b)}, worked by hand {want}")
    for b, (model, gpu, want) in HAND_TERMS.items():
        got = planned_runtime(canitrun, {"model_id": model, "gpu_id": gpu}, cache) / MIB
        if got != want:
            failures.append(f"{b}'s term for {model} on {gpu}: {got} MiB, worked by hand {want}")
    for b, cards in HAND_MACHINES.items():
        for card, want in cards.items():
            if abs(per_card.get((b, card), float("nan")) - want) > 0.005:
                failures.append(f"{b} {card}: the largest reading is "
                                f"{per_card.get((b, card))}, worked by hand {want}")
    if not processes or abs(max(processes) - HAND_PER_PROCESS) > 0.005:
        failures.append(f"the largest per-process reading is {max(processes, default=None)}")
    if not post_load or abs(min(post_load) - HAND_MIN_POST_LOAD) > 0.005:
        failures.append(f"Vulkan: the smallest post-load reading is {min(post_load, default=None)}")
    for b, want in MIN_COVERED.items():
        if covered.get(b, 0) < want:
            failures.append(f"{b}: {covered.get(b, 0)} rows held to the term, want {want}")
    for f in failures:
        print(f)
    print(f"{len(rows)} rows; held to the term: {covered}; largest readings (MiB): "
          f"{ {b: round(v, 2) for b, v in largest.items()} }")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
