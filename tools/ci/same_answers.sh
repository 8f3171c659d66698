#!/usr/bin/env bash
# Asks two canitrun binaries the same questions and names each one they answer differently
# (stdout, stderr and exit status together): a refactor that should change no answer shows
# "diffs=0". The questions: every database model's page as JSON, on an RTX 4090, on 2x3090 with
# 64 GB, its GPU lists, --vram 8 and --quiet; fit on five machines; vLLM, exo and RPC over hosts;
# compare; the lists; verify on every fixture log. JSON and --quiet rather than the page's text,
# so that a change of wording alone does not count.
# Usage: tools/ci/same_answers.sh OLD_BINARY NEW_BINARY
set -uo pipefail
A=$1 B=$2
root="$(cd "$(dirname "$0")/../.." && pwd)"
diffs=0 total=0
ask() {
  total=$((total + 1))
  local a b
  a=$("$A" "$@" 2>&1; echo "exit $?")
  b=$("$B" "$@" 2>&1; echo "exit $?")
  if [ "$a" != "$b" ]; then
    diffs=$((diffs + 1))
    echo "differs: canitrun $*"
  fi
}
for m in $("$A" models --names); do
  ask "$m" --json
  ask "$m" --gpu "RTX 4090" --json
  ask "$m" --gpu 2x3090 --ram 64 --json
  ask gpus "$m" --json
  ask "$m" --vram 8 --quiet
  ask "$m" --gpu "RTX 4090" --quiet
done
for g in "RTX 4090" "RTX 4060" 2xH100 2x3090 3x3090; do ask fit --gpu "$g" --ram 64 --json; done
ask llama-3.1-8b --engine vllm --gpu h100 --json
ask llama-3.1-405b --engine exo --host m3-ultra-256gb --host m3-ultra-256gb --json
ask llama-3.1-405b --host m3-ultra-256gb --host m3-ultra-256gb --json
ask deepseek-v3 --engine vllm --quant FP8 --host 8xh100-sxm --host 8xh100-sxm --json
ask compare qwen3.5-35b-a3b gpt-oss-20b llama-3.1-8b --json
ask models --json
ask gpu-list --json
ask quants --json
for f in "$root"/tests/fixtures/logs/*.log; do ask verify "$f" --json; done
echo "total=$total diffs=$diffs"
[ "$diffs" -eq 0 ]
