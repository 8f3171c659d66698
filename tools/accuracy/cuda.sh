#!/usr/bin/env bash
# The accuracy harness's CUDA mode: step 2 of 2, the one command on a machine with an NVIDIA GPU
# (made for one H200: nvcc, CMake, Ninja, no network, x86-64, at most 10 minutes a command).
# Builds llama.cpp (the source the pinned node-llama-cpp ships, packed by cuda_prepare.sh) with
# GGML_CUDA for sm_90 only, builds tools/accuracy/cuda_probe.cpp against it, then for each model
# of a short list (dense, MoE, sliding window, hybrid recurrent, MLA) writes the harness's
# full-size sparse GGUF (make_gguf), loads it on the GPU with every layer offloaded (for real: the
# weights are the file's zeros), and at each setting records llama.cpp's buffers and the GPU's
# used memory (cudaMemGetInfo and nvidia-smi) after the context is made and after decoding;
# runs `canitrun FILE.gguf --engine llama.cpp --backend cuda --json` with the same settings, and
# prints the comparison with the runtime and compute-buffer fit (tools/accuracy/cuda_compare.py).
#
# The two steps, from the repository root:
#   1. here (the CPU machine):  tools/accuracy/cuda_prepare.sh
#        fills .accuracy-cuda/ (git-ignored): llama.cpp's source, canitrun and make_gguf with
#        their libraries; about 35 MB
#   2. on the device (the run tool, carry [".accuracy-cuda"], timeout_s 600), one command:
#        set -o pipefail; bash tools/accuracy/cuda.sh 2>&1 | tee "$OUT/log"
# What comes back under $OUT (7 files, more with CUDA_GALLOC_CASES; each cut to 15 MiB at most):
#   log               this script's output, as tee writes it: timings, the buffer lines
#                     llama.cpp logs, and the comparison tables
#   env.txt           nvidia-smi (idle), nvcc, cmake, gcc, CPU, memory, disk, the pack's stamp
#   build.log         CMake's configure and Ninja's build output (its tail is in log on failure)
#   cuda_probe.jsonl  cuda_probe's JSON lines: one per model ("kind":"model"), two per setting
#                     ("context" once it is made, "decode" after the decodes)
#   canitrun.jsonl    one line per model and setting: {"label","model","quant","config",
#                     "canitrun": canitrun's --json document}
#   probe.log         cuda_probe's and canitrun's stderr
#   ACCURACY-cuda.md  the CUDA section for docs/ACCURACY.md (when python3 is there)
#   galloc-*.tar.gz   one per CUDA_GALLOC_CASES case done: the CUDA reservation's graphs
#                     (galloc_dump.c's gN.txt and gN.ids), and galloc.jsonl, cuda_probe's lines
#                     for those contexts
# Read them here again, or after changing canitrun's CUDA terms (no GPU needed: the measurements
# stay, the estimates are redone with canitrun and make_gguf built here):
#   python3 tools/accuracy/cuda_compare.py OUTDIR [OUTDIR2 ...] [--md FILE.md] \
#     [--reestimate build-accuracy/canitrun build-accuracy/tools/accuracy/make_gguf]
# (several folders: the runs are merged, e.g. a first run and a second one for the models the
# first had no time for; the script prints that second command when models are left out).
#
# Time: the build is the long part (ggml-cuda for one architecture: 143 nvcc jobs, and 204 C++
# files; 363 Ninja steps, with -j$(nproc)+2 on 16 cores an estimated 4 to 6 minutes, more under
# gVisor); each model then takes about 10 to 40 seconds (writing the sparse file, loading its
# zeros, 5 settings). Deadlines, counted from the script's start: the build is stopped at
# CUDA_BUILD_BUDGET_S (default 450), no model starts after CUDA_DEADLINE_S - 40, and a running
# one is stopped at CUDA_DEADLINE_S - 10 (default 540: 9 minutes, inside the run tool's 600 s;
# CUDA_DEADLINE_S=480 CUDA_BUILD_BUDGET_S=400 for 8). Build outputs stay in build-cuda-accuracy/
# (ignored, not carried): the same command again on the same machine while it is still warm
# (30 s after a call on the H200) resumes the build where it stopped, or skips it; the script
# prints that command for the models it had no time for.
# Environment: CUDA_MODELS ("id:QUANT id:QUANT ..."), CUDA_SETTINGS ("n_ctx:n_ubatch:n_seq:fa:
# type_k:type_v[:fill] ..."), CUDA_GALLOC_CASES ("id:QUANT@n_ctx:n_ubatch:n_seq:fa:type_k:type_v
# ...", "" for none; CUDA_GALLOC_ONLY=1: these and no models): after the models, while time remains, each is loaded again without decoding
# and with tools/accuracy/galloc_dump.c preloaded, so that its CUDA reservation's graphs come
# back; replay one here with `galloc_replay.py gN.txt ggml.h --buffer 0` and set it beside the
# CPU dump's `--cuda` replay: by default the two settings where that replay alone explains the
# H200's CUDA0 buffer, Qwen3-30B-A3B with 4 sequences and Qwen3-Next at 131072 cells, whose
# top-k gating's kept tensors 0ad4a86's source adds and the measured build did not),
# CUDA_DEADLINE_S, CUDA_BUILD_BUDGET_S, CUDA_WORK (where the sparse
# GGUF files go; default build-cuda-accuracy/work), OUT (default build-cuda-accuracy/out),
# CUDA_PROBE_BIN (skip the build, use this cuda_probe: a dry run of the script, see the probe's
# CUDA_PROBE_CPU_DRYRUN).
set -uo pipefail
t0=$(date +%s)
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root" || exit 1
pack="$root/.accuracy-cuda"
bld="$root/build-cuda-accuracy"
out="${OUT:-$bld/out}"
work="${CUDA_WORK:-$bld/work}"
deadline="${CUDA_DEADLINE_S:-540}"
build_budget="${CUDA_BUILD_BUDGET_S:-450}"
jobs="$(($(nproc) + 2))"
mkdir -p "$out" "$bld" "$work"

# Dense, MoE, sliding window, sinks + MXFP4, MLA, Mamba-2 hybrid, Gated DeltaNet hybrid, 70B;
# cheapest first, so a late build still leaves the first rows. Then extras while time remains.
MODELS="${CUDA_MODELS:-llama-3.1-8b:Q4_K_M qwen3-30b-a3b:Q4_K_M gemma-3-27b:Q4_K_M \
gpt-oss-20b:MXFP4 deepseek-v2-lite:Q4_K_M granite-4.0-h-micro:Q8_0 qwen3.5-35b-a3b:Q4_K_M \
llama-3.3-70b:Q4_K_M gemma-3-1b:Q8_0 phi-4-14b:Q4_K_M nemotron-h-8b:Q4_K_M mixtral-8x7b:Q4_K_M \
qwen3-next-80b-a3b:Q4_K_M}"
# ctx 4096 filled to the end (the CUDA pool at a full cache), 32k with FA on and off, ubatch
# 2048, and 128k: the compute buffer's dependence on context, ubatch and flash attention.
SETTINGS="${CUDA_SETTINGS:-4096:512:1:on:f16:f16:fill 32768:512:1:on:f16:f16 \
32768:512:1:off:f16:f16 32768:2048:1:on:f16:f16 131072:512:1:on:f16:f16}"
GALLOC_CASES="${CUDA_GALLOC_CASES-qwen3-30b-a3b:Q4_K_M@8192:512:4:on:f16:f16 \
qwen3-next-80b-a3b:Q4_K_M@131072:512:1:on:f16:f16}"

elapsed() { echo $(($(date +%s) - t0)); }
say() { echo "[$(printf '%4s' "$(elapsed)")s] $*"; }
# Every file under $OUT must stay under the run tool's 16 MiB.
finish() {
  local f
  for f in "$out"/*; do
    [ -f "$f" ] || continue
    if [ "$(stat -c %s "$f")" -gt $((15 * 1048576)) ]; then
      tail -c $((15 * 1048576)) "$f" >"$f.cut" && mv "$f.cut" "$f"
    fi
  done
  rm -f "$work"/*.gguf
  say "done ($1); files in $out:"
  ls -la "$out"
  exit "$1"
}
trap 'say "interrupted"; finish 130' INT TERM

# ---- the machine
[ -f "$pack/llama.cpp.tar.gz" ] || { say "no $pack/llama.cpp.tar.gz: run tools/accuracy/cuda_prepare.sh first and carry .accuracy-cuda"; finish 1; }
if ! command -v nvcc >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
    [ -x "$d/nvcc" ] && { export PATH="$d:$PATH"; break; }
  done
fi
{
  echo "== stamp"; cat "$pack/stamp.txt" 2>/dev/null
  echo "== nvidia-smi"; nvidia-smi 2>&1
  echo "== nvidia-smi query"
  nvidia-smi --query-gpu=index,name,memory.used,memory.total,memory.reserved,driver_version,persistence_mode,compute_mode --format=csv 2>&1 ||
    nvidia-smi --query-gpu=index,name,memory.used,memory.total,driver_version --format=csv 2>&1
  echo "== nvcc"; nvcc --version 2>&1
  echo "== cmake"; cmake --version 2>&1 | head -1
  echo "== ninja"; ninja --version 2>&1
  echo "== gcc"; gcc --version 2>&1 | head -1
  echo "== python3"; python3 --version 2>&1
  echo "== cpu"; nproc; grep -m1 'model name' /proc/cpuinfo
  echo "== memory"; free -g 2>&1
  echo "== disk"; df -h "$bld" "$work" 2>&1
  echo "== uname"; uname -a; cat /proc/version 2>&1
  echo "== CUDA environment"; env | grep -E '^(CUDA|NVIDIA|GGML|LD_LIBRARY)' 2>&1
} >"$out/env.txt" 2>&1
command -v nvidia-smi >/dev/null || say "no nvidia-smi: only cudaMemGetInfo's figures (the runtime term needs nvidia-smi's)"
say "GPU: $(nvidia-smi --query-gpu=name,memory.used,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)"
say "nvcc: $(nvcc --version 2>&1 | tail -1); cmake $(cmake --version | head -1 | awk '{print $3}'); $(nproc) CPUs; deadline ${deadline}s"

# ---- llama.cpp: unpack (again only when the pack changed), configure, build libllama and
# cuda_probe. Host code at -O1 (nvcc's -O is the host compiler's; the kernels keep ptxas's
# default optimization) and nvcc's default fatbin compression ("speed", not ggml's "size"): the
# buffers and the GPU's memory do not depend on them, the build time does. CUDA_PROBE_BIN: a
# cuda_probe built elsewhere and no build (a check of this script without a GPU, with
# CUDA_PROBE_CPU_DRYRUN=1).
progress() { grep -o '^\[[0-9]*/[0-9]*\]' "$out/build.log" | tail -1; }
configure() {
  cmake -S "$src" -B "$bld/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_FA_ALL_QUANTS=OFF \
    -DGGML_CUDA_NCCL=OFF -DGGML_CUDA_COMPRESSION_MODE=speed -DGGML_NATIVE=ON -DGGML_CCACHE=OFF \
    -DBUILD_SHARED_LIBS=ON \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DLLAMA_BUILD_APP=OFF \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_CUDA_FLAGS_RELEASE="-O1 -DNDEBUG" "$@" \
    >>"$out/build.log" 2>&1
}
build_llama() {
  command -v nvcc >/dev/null || { say "no nvcc"; finish 1; }
  src="$bld/llama.cpp"
  local stamp rc left bpid n=0
  stamp="$(md5sum "$pack/llama.cpp.tar.gz" | cut -d' ' -f1)"
  if [ "$(cat "$bld/src.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$src" "$bld/build"
    tar -xzf "$pack/llama.cpp.tar.gz" -C "$bld" || { say "cannot unpack the source"; finish 1; }
    echo "$stamp" >"$bld/src.stamp"
  fi
  if [ ! -f "$bld/build/build.ninja" ]; then
    say "configuring llama.cpp (CUDA, sm_90)"
    if ! configure; then
      # an nvcc older than the host compiler refuses it; the kernels do not depend on that
      say "configure failed; again with -allow-unsupported-compiler"
      rm -rf "$bld/build"
      configure -DCMAKE_CUDA_FLAGS=-allow-unsupported-compiler ||
        { tail -40 "$out/build.log"; say "configure failed"; finish 1; }
    fi
  fi
  left=$((build_budget - $(elapsed)))
  [ "$left" -gt 30 ] || left=30
  say "building libllama with ggml-cuda: ninja -j$jobs, at most ${left}s"
  timeout -k 10 "$left" cmake --build "$bld/build" --target llama -j "$jobs" >>"$out/build.log" 2>&1 &
  bpid=$!
  while kill -0 "$bpid" 2>/dev/null; do
    sleep 5
    n=$((n + 1))
    [ $((n % 12)) -ne 0 ] || say "build $(progress)"
  done
  wait "$bpid"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -30 "$out/build.log"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      say "the build did not finish in ${left}s (at $(progress)); run the same command again on this machine to resume it"
    else
      say "the build failed (rc $rc)"
    fi
    finish 1
  fi
  say "built: $(progress)"
  libdir="$(dirname "$(find "$bld/build" -name 'libllama.so' | head -1)")"
  probe="$bld/cuda_probe"
  g++ -std=c++17 -O1 -I"$src/include" -I"$src/ggml/include" -I"$src/src" \
    "$root/tools/accuracy/cuda_probe.cpp" -o "$probe" -L"$libdir" -lllama -lggml -lggml-base \
    -Wl,-rpath,"$libdir" >>"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; say "cuda_probe does not build"; finish 1; }
  say "cuda_probe built against $libdir"
}
probe="${CUDA_PROBE_BIN:-}"
[ -n "$probe" ] || build_llama

# ---- canitrun and make_gguf: the x86-64 builds from the pack, through their own loader
ld="$pack/lib/ld-linux-x86-64.so.2"
bundled() {
  local b="$1"; shift
  if [ -x "$ld" ]; then "$ld" --library-path "$pack/lib" "$pack/bin/$b" "$@"; else "$pack/bin/$b" "$@"; fi
}
bundled canitrun --version >/dev/null 2>&1 || { say "the packed canitrun does not run here"; finish 1; }

# ---- the models
: >"$out/cuda_probe.jsonl"
: >"$out/canitrun.jsonl"
: >"$out/probe.log"
say "GPU before the models: $(nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>&1), apps: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>&1 | tr '\n' ' ')"
has_line() {  # has_line LABEL KIND CONFIG: cuda_probe printed that line
  grep -qF "{\"label\":\"$1\",\"kind\":\"$2\",\"config\":\"$3\"" "$out/cuda_probe.jsonl"
}
decode_crashes=0
# measure LABEL FILE: cuda_probe over the settings; when it dies (a CUDA error aborts), again
# over the settings it did not reach, leaving out the one it died on; after two deaths while
# decoding, the models that follow are measured without decoding (contexts and buffers only).
measure() {
  local label="$1" gguf="$2" pending="$SETTINGS" rest rc left s tries=0
  while [ -n "$pending" ] && [ "$tries" -lt 3 ]; do
    tries=$((tries + 1))
    left=$((deadline - 10 - $(elapsed)))
    [ "$left" -gt 10 ] || left=10
    # shellcheck disable=SC2086
    timeout -k 5 "$left" "$probe" "$label" "$gguf" $pending >>"$out/cuda_probe.jsonl" \
      2>"$work/probe.err"
    rc=$?
    cat "$work/probe.err" >>"$out/probe.log"
    grep -vE '^  \| .*(n_ctx_seq|flash_attn)' "$work/probe.err" | cut -c1-200 | head -80
    [ "$rc" -ne 0 ] || return 0
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      say "$label: cuda_probe stopped at the deadline"
      return 1
    fi
    grep -qF "{\"label\":\"$label\",\"kind\":\"model\"" "$out/cuda_probe.jsonl" ||
      { say "$label: cuda_probe died before the model loaded (rc $rc)"; return 1; }
    rest=""
    for s in $pending; do
      if ! has_line "$label" context "$s"; then
        rest="$rest $s"
      elif has_line "$label" context "$s\",\"n_ctx" && ! has_line "$label" decode "$s" &&
        [ -z "${CUDA_PROBE_NO_DECODE:-}" ]; then
        # its context line and no decode line: it died decoding this setting
        say "$label $s: cuda_probe died while decoding (rc $rc)"
        decode_crashes=$((decode_crashes + 1))
        if [ "$decode_crashes" -ge 2 ]; then
          say "two deaths while decoding: no more decodes (CUDA_PROBE_NO_DECODE=1)"
          export CUDA_PROBE_NO_DECODE=1
        fi
      fi
    done
    pending="${rest# }"
    # the first setting still pending is the one it died on, unless it died decoding another
    # (then the file's last line is that setting's context line)
    if [ -n "$pending" ] && [ "$(tail -1 "$out/cuda_probe.jsonl" | grep -cF '"kind":"context"')" -eq 0 ]; then
      say "$label ${pending%% *}: cuda_probe died making this context (rc $rc); left out"
      printf '{"label":"%s","kind":"context","config":"%s","error":"cuda_probe died (rc %s)"}\n' \
        "$label" "${pending%% *}" "$rc" >>"$out/cuda_probe.jsonl"
      pending="$(echo "$pending" | cut -s -d' ' -f2-)"
    fi
    [ -z "$pending" ] || [ "$(elapsed)" -lt $((deadline - 30)) ] || return 1
    [ -z "$pending" ] || say "$label: again for$( for s in $pending; do printf ' %s' "$s"; done )"
  done
}
# A model's full-size sparse GGUF (make_gguf); says so and leaves nothing where it fails.
write_gguf() {
  bundled make_gguf "$1" "$2" "$3" >/dev/null 2>>"$out/probe.log" && return 0
  say "$1 $2: make_gguf failed"
  rm -f "$3"
  return 1
}
done_models=0
skipped=""
[ -z "${CUDA_GALLOC_ONLY:-}" ] || MODELS=""  # only the CUDA_GALLOC_CASES dumps
for mq in $MODELS; do
  model="${mq%%:*}"
  quant="${mq#*:}"
  if [ "$(elapsed)" -gt $((deadline - 40)) ]; then
    skipped="$skipped $mq"
    continue
  fi
  gguf="$work/$model-$quant.gguf"
  write_gguf "$model" "$quant" "$gguf" || continue
  say "$model $quant: $(( $(stat -c %s "$gguf") / 1048576 )) MiB file, $(( $(stat -c %b "$gguf") * $(stat -c %B "$gguf") / 1048576 )) MiB on disk"
  for s in $SETTINGS; do
    IFS=: read -r ctx ub seq fa tk tv _ <<<"$s"
    est="$(bundled canitrun "$gguf" --engine llama.cpp --backend cuda --ctx "$ctx" --ubatch "$ub" \
      --parallel "$seq" --flash-attn "$fa" --cache-type-k "$tk" --cache-type-v "$tv" --reserve-outputs all ${CUDA_CANITRUN_FLAGS:-} --json \
      2>>"$out/probe.log" | tr -d '\n')"
    printf '{"label":"%s %s","model":"%s","quant":"%s","config":"%s","canitrun":%s}\n' \
      "$model" "$quant" "$model" "$quant" "$s" "${est:-null}" >>"$out/canitrun.jsonl"
  done
  measure "$model $quant" "$gguf"
  rm -f "$gguf"
  done_models=$((done_models + 1))
done
[ -z "$skipped" ] || say "no time left for:$skipped; the rest, on the same warm machine (the build is kept):
  set -o pipefail; CUDA_MODELS=\"${skipped# }\" bash tools/accuracy/cuda.sh 2>&1 | tee \"\$OUT/log\""
say "$done_models models measured"

# ---- the CUDA reservation's graphs (CUDA_GALLOC_CASES): galloc_dump.c built against this
# build's libggml-base, preloaded into cuda_probe, which makes the context without decoding
galloc_dumps() {
  local base shim="$bld/galloc_dump.so" case mq cfg model quant gguf name d left
  [ -n "$GALLOC_CASES" ] || return 0
  base="$(find "$bld/build" -name 'libggml-base.so' 2>/dev/null | head -1)"
  if [ -z "$base" ] || [ -z "${src:-}" ]; then
    say "galloc dumps: no libggml-base.so of this build (CUDA_PROBE_BIN?): none taken"
    return 0
  fi
  gcc -shared -fPIC -O1 -I"$src/ggml/include" "$root/tools/accuracy/galloc_dump.c" -o "$shim" \
    -ldl "$base" -Wl,-rpath,"$(dirname "$base")" >>"$out/build.log" 2>&1 ||
    { say "galloc_dump.so does not build"; return 0; }
  for case in $GALLOC_CASES; do
    mq="${case%%@*}"
    cfg="${case#*@}"
    model="${mq%%:*}"
    quant="${mq#*:}"
    if [ "$(elapsed)" -gt $((deadline - 60)) ]; then
      say "no time left for the galloc dump of $case; alone, on the same warm machine:
  set -o pipefail; CUDA_GALLOC_ONLY=1 CUDA_GALLOC_CASES=\"$case\" bash tools/accuracy/cuda.sh 2>&1 | tee \"\$OUT/log\""
      continue
    fi
    gguf="$work/$model-$quant.gguf"
    write_gguf "$model" "$quant" "$gguf" || continue
    name="galloc-$model-${cfg//:/_}"
    d="$work/$name"
    rm -rf "$d"
    mkdir -p "$d"
    left=$((deadline - 10 - $(elapsed)))
    GALLOC_DUMP_DIR="$d" CUDA_PROBE_NO_DECODE=1 timeout -k 5 "$left" \
      env LD_PRELOAD="$shim" "$probe" "$model $quant" "$gguf" "$cfg" >>"$out/galloc.jsonl" \
      2>"$work/probe.err"
    grep -h 'galloc_dump:' "$work/probe.err" | head -20
    cat "$work/probe.err" >>"$out/probe.log"
    tar -czf "$out/$name.tar.gz" -C "$work" "$name"
    say "$case: $(find "$d" -name 'g*.txt' | wc -l) graphs in $name.tar.gz"
    rm -rf "$d" "$gguf"
  done
}
galloc_dumps

# ---- the comparison
if command -v python3 >/dev/null; then
  python3 "$root/tools/accuracy/cuda_compare.py" "$out" --md "$out/ACCURACY-cuda.md" ||
    say "cuda_compare.py failed"
else
  say "no python3: compare here with tools/accuracy/cuda_compare.py on the files that came back"
fi
finish 0
