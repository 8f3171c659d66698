#!/usr/bin/env bash
# The accuracy harness: one command, from the repository root:
#   tools/accuracy/run.sh
# Installs node-llama-cpp@$nlc_version (prebuilt libllama, llama.cpp $llama_commit; both named
# once, in tools/accuracy/pin.sh) into a cache folder,
# builds make_gguf, llama_probe and quant_check, checks canitrun's tensor types against
# llama.cpp's own llama-quantize rule code for every GGUF file type, writes full-size sparse
# GGUF files of database models one at a time (they take no disk blocks), loads each with
# llama.cpp and compares every buffer with `canitrun --engine llama.cpp`; writes
# docs/ACCURACY.md.
# Needs: cmake, g++, python3, npm (for the install), git (only to unpack llama.cpp's headers from
# the npm package's bundle when LLAMA_SRC is not given). Takes about 6 minutes on 2 cores; the
# GGUF files are sparse and deleted as it goes.
# Environment: ACCURACY_CACHE (default ~/.cache/canitrun-accuracy-$nlc_version), NLC_DIR (an
# existing node_modules parent holding node-llama-cpp $nlc_version: skips the install), LLAMA_SRC
# (llama.cpp source for llama.h / ggml headers; default: the source inside the npm package).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
# The pinned build (nlc_version, llama_commit): tools/accuracy/pin.sh.
. "$root/tools/accuracy/pin.sh"
export NLC_VERSION="$nlc_version" LLAMA_COMMIT="$llama_commit"
cache="${ACCURACY_CACHE:-$HOME/.cache/canitrun-accuracy-$nlc_version}"
mkdir -p "$cache"

nlc="${NLC_DIR:-$cache/npm}"
if [ ! -d "$nlc/node_modules/@node-llama-cpp/linux-x64" ]; then
  mkdir -p "$nlc"
  npm install --prefix "$nlc" "node-llama-cpp@$nlc_version" --ignore-scripts --no-audit --no-fund
fi
bins="$nlc/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64"
if ! grep -q "\"version\": *\"$nlc_version\"" "$nlc/node_modules/node-llama-cpp/package.json" ||
  ! grep -qa "$llama_commit" "$bins/libggml-base.so"; then
  echo "run.sh: $nlc holds no node-llama-cpp $nlc_version built from llama.cpp $llama_commit" \
    "(set ACCURACY_CACHE or NLC_DIR to a fresh folder)" >&2
  exit 1
fi
# libllama and libggml carry the release of the bundled llama.cpp in their names (v0.4.0, ...).
libllama="$(ls "$bins"/libllama.v*.so)"
libggml="$(ls "$bins"/libggml.v*.so)"

src="${LLAMA_SRC:-}"
if [ -z "$src" ]; then
  # The npm package carries llama.cpp's source as a git bundle; unpack its headers once.
  src="$cache/llama.cpp"
  if [ ! -f "$src/include/llama.h" ]; then
    git clone --quiet "$nlc/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$src"
  fi
fi

cmake -S "$root" -B "$root/build-accuracy" -DCANITRUN_ACCURACY_TOOLS=ON -DCANITRUN_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build-accuracy" -j2 --target canitrun make_gguf >/dev/null
g++ -std=c++17 -O1 -I"$src/include" -I"$src/ggml/include" -I"$src/src" \
  "$root/tools/accuracy/llama_probe.cpp" \
  -o "$root/build-accuracy/llama_probe" "$libllama" "$libggml" \
  "$bins/libggml-base.so" -Wl,-rpath,"$bins"

g++ -std=c++17 -O1 -I"$src/include" -I"$src/ggml/include" -I"$src/src" \
  "$root/tools/accuracy/quant_check.cpp" -o "$root/build-accuracy/quant_check" \
  "$libllama" "$libggml" "$bins/libggml-base.so" -Wl,-rpath,"$bins"

work="$(mktemp -d "${TMPDIR:-/tmp}/canitrun-accuracy.XXXXXX")"
trap 'rm -rf "$work"' EXIT
python3 "$root/tools/accuracy/compare.py" "$root/build-accuracy/tools/accuracy/make_gguf" \
  "$root/build-accuracy/llama_probe" "$root/build-accuracy/canitrun" "$bins" "$work" \
  "$root/docs/ACCURACY.md" "$root/build-accuracy/quant_check"
