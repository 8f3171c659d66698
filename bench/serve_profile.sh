#!/usr/bin/env bash
# Instructions per uncached model answer of `canitrun serve` (bench/RESULTS.md, issue #36):
# callgrind on canitrun-serve with one worker, collecting inside api_answer only, over N
# answers of the model API with a context not asked before each time, so the answer cache
# (src/serve/answer_cache.hpp) never answers. Callgrind's count is steady on a loaded machine,
# where time is not.
# Usage: bench/serve_profile.sh BUILD_DIR [N=21] [FIRST_CONTEXT=5000] [OUT=callgrind.serve.out]
set -euo pipefail
dir=$1 n=${2:-21} base=${3:-5000} out=${4:-callgrind.serve.out}
err=$(mktemp)
trap 'rm -f "$err"' EXIT
valgrind --tool=callgrind --toggle-collect='*api_answer*' --callgrind-out-file="$out" \
  "$dir/canitrun-serve" --port 0 --threads 1 --quiet 2>"$err" &
pid=$!
port=
for _ in $(seq 1 240); do
  port=$(grep -o 'http://127.0.0.1:[0-9]*' "$err" | head -1 | sed 's/.*://') || true
  [ -n "$port" ] && break
  sleep 0.5
done
[ -n "$port" ] || { kill "$pid"; echo "the server did not start" >&2; exit 1; }
for i in $(seq 1 "$n"); do
  curl -sf -o /dev/null \
    "http://127.0.0.1:$port/api/v1/models/qwen3.5-35b-a3b?quant=Q4_K_M&ctx=$((base + i))&gpu=RTX+4090"
done
kill -TERM "$pid"
wait "$pid" || true
total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !t {gsub(",", "", $1); t = $1} END {print t}')
echo "$n answers: $total instructions, $((total / n)) per answer ($out)"
