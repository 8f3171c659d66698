#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time: fuzz/run.sh [SECONDS_PER_TARGET] [BUILD_DIR]
# (default 60 s, build-fuzz). Build them first:
#   CXX=clang++-16 cmake -S . -B build-fuzz -DCANITRUN_FUZZ=ON -DCANITRUN_BUILD_TESTS=OFF
#   cmake --build build-fuzz -j2
# Each target starts from fuzz/corpus/<target>/ (read only); new inputs go to a scratch folder,
# crashes to build-fuzz/fuzz-artifacts/. Exit status 1 if any target found a crash.
# The seed is fixed (FUZZ_SEED, default 1) so CI's bounded run walks the same inputs each time
# and a red CI means a bug, not a lucky draw; set FUZZ_SEED=0 for a random seed on longer runs.
# For a longer run of one target: build-fuzz/fuzz/fuzz_database -max_total_time=3600 \
#   -dict=fuzz/json.dict NEW_CORPUS_DIR fuzz/corpus/fuzz_database
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-fuzz}
seed=${FUZZ_SEED:-1}
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
# Targets run FUZZ_JOBS at a time (default: one per core), each on its own core, so the bound
# per target is the same as one at a time and the whole run takes 1/FUZZ_JOBS of the time.
jobs=${FUZZ_JOBS:-$(nproc)}
results=$(mktemp -d)
run_target() {
  local target=$1 name scratch dict=()
  name=$(basename "$target")
  scratch=$(mktemp -d)
  [ "$name" = fuzz_database ] && dict=(-dict=fuzz/json.dict)
  echo "fuzz: $name for ${seconds}s"
  if ! "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -seed="$seed" \
    -artifact_prefix="$artifacts/$name-" "${dict[@]}" "$scratch" "fuzz/corpus/$name" \
    >"$artifacts/$name.log" 2>&1; then
    { echo "fuzz: $name FAILED (see $artifacts/$name.log)"; tail -40 "$artifacts/$name.log"; } \
      >"$results/$name.failed"
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$artifacts/$name.log" |
      sed "s/^/fuzz: $name /" >"$results/$name.ok"
  fi
  rm -rf "$scratch"
}
running=0
for target in "$build"/fuzz/fuzz_*; do
  [ -x "$target" ] || continue
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_target "$target" &
  running=$((running + 1))
done
wait
# Reports in name order, whatever order the targets finished in.
cat "$results"/*.ok 2>/dev/null || true
status=0
if compgen -G "$results/*.failed" >/dev/null; then
  cat "$results"/*.failed
  status=1
fi
rm -rf "$results"
exit $status
