#!/usr/bin/env bash
# Refits the speed model: tools/speed/fit.sh [BUILD_DIR] (default build-speed). Writes
# src/core/plan/speed_fit.cpp and docs/SPEED.md; with --check, writes them to a scratch
# folder and fails when they differ from the committed ones (CI: the fit is reproducible).
set -euo pipefail
cd "$(dirname "$0")/../.."
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
build=${1:-build-speed}
# The formatter CI pins (.clang-format); another release where it is missing.
clang_format=$(command -v clang-format-14 || command -v clang-format || echo clang-format)
if [ -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCANITRUN_SPEED_FIT=ON >/dev/null  # an existing build keeps its settings
else
  cmake -S . -B "$build" -DCANITRUN_SPEED_FIT=ON -DCANITRUN_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" --target fit_speed -j2 >/dev/null
if [ $check = 1 ]; then
  out=$(mktemp -d)
  "$build/tools/speed/fit_speed" validation/llama-bench.json "$out/speed_fit.cpp" "$out/SPEED.md"
  "$clang_format" --assume-filename=src/core/plan/speed_fit.cpp <"$out/speed_fit.cpp" \
    >"$out/speed_fit.formatted.cpp"
  diff -u src/core/plan/speed_fit.cpp "$out/speed_fit.formatted.cpp"
  diff -u docs/SPEED.md "$out/SPEED.md"
  rm -rf "$out"
  echo "speed fit: reproduced"
else
  "$build/tools/speed/fit_speed" validation/llama-bench.json src/core/plan/speed_fit.cpp docs/SPEED.md
  "$clang_format" -i src/core/plan/speed_fit.cpp
fi
