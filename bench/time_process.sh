#!/usr/bin/env bash
# Whole-process timings: bench/time_process.sh [CANITRUN_BINARY] [RUNS]
# (default build/canitrun, 100 runs). Runs each command RUNS times in a row and prints, per run,
# the mean wall time and the mean CPU time (user + sys) in ms. On a busy machine the CPU time is
# the steadier figure. Target: any single query under 5 ms.
set -euo pipefail
bin=${1:-build/canitrun}
runs=${2:-100}
model=qwen3.5-35b-a3b
TIMEFORMAT='%3R %3U %3S'

time_it() {
  local label=$1 times real user sys
  shift
  "$@" >/dev/null 2>&1 || true  # warm the page cache (exit 1 is "does not fit")
  times=$({ time (for ((i = 0; i < runs; i++)); do "$@" >/dev/null 2>&1 || true; done); } 2>&1)
  read -r real user sys <<<"$times"
  awk -v l="$label" -v r="$real" -v u="$user" -v s="$sys" -v n="$runs" \
    'BEGIN { printf "%-44s wall %6.2f ms   cpu %6.2f ms   (mean of %d)\n", l, r * 1000 / n, (u + s) * 1000 / n, n }'
}

echo "binary: $bin ($("$bin" --version | tr '\n' ' '))"
# The floor: what starting any process costs here, loop included, for scale.
time_it "/bin/true (process start floor)" /bin/true
time_it "canitrun --version" "$bin" --version
time_it "canitrun $model" "$bin" "$model"
time_it "canitrun $model --json" "$bin" "$model" --json
time_it "canitrun $model --gpu 'RTX 4090'" "$bin" "$model" --gpu "RTX 4090"
time_it "canitrun gpus $model" "$bin" gpus "$model"
time_it "canitrun gpu-list" "$bin" gpu-list
time_it "canitrun quants --names" "$bin" quants --names
# `fit` counts only when --help lists it as a subcommand (otherwise it would be a model name).
# The help is read whole first: `grep -q` closing the pipe early fails the pipeline under pipefail.
help=$("$bin" --help)
if grep -qE '^  fit +' <<<"$help"; then
  time_it "canitrun fit --gpu 'RTX 4090'" "$bin" fit --gpu "RTX 4090"
else
  echo "canitrun fit --gpu X: skipped (this build has no 'fit' subcommand)"
fi
