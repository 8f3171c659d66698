#!/usr/bin/env bash
# Step 1 of 2 of the accuracy harness's CUDA mode (tools/accuracy/cuda.sh): runs HERE, on the
# CPU machine, and fills .accuracy-cuda/ (git-ignored through .git/info/exclude) with everything
# the GPU machine needs and cannot fetch there (it has no network):
#   .accuracy-cuda/llama.cpp.tar.gz  llama.cpp's source as the pinned node-llama-cpp ships it (git
#                                    bundle's HEAD, cloned by run.sh into the cache), only what
#                                    libllama needs (CMakeLists.txt cmake ggml src include vendor
#                                    licenses LICENSE), with node-llama-cpp's llama/patches applied
#                                    the way it applies them before its own builds
#   .accuracy-cuda/bin/              canitrun and make_gguf, x86-64, built here (build-accuracy,
#                                    as run.sh builds them), stripped
#   .accuracy-cuda/lib/              their shared libraries with this machine's dynamic loader,
#                                    so they run on any x86-64 Linux whatever its glibc:
#                                    lib/ld-linux-x86-64.so.2 --library-path lib bin/canitrun ...
#   .accuracy-cuda/stamp.txt         what was packed, from which commits
# About 35 MB in all; the run tool carries at most 64 MiB.
#
# The two steps, from the repository root:
#   1. here:           tools/accuracy/cuda_prepare.sh
#   2. on the device:  the run tool with carry [".accuracy-cuda"] and timeout_s 600, command
#        set -o pipefail; bash tools/accuracy/cuda.sh 2>&1 | tee "$OUT/log"
# cuda.sh's header says what comes back under $OUT and how to read it here.
#
# Environment: ACCURACY_CACHE (default ~/.cache/canitrun-accuracy-VERSION: run.sh's cache, with the
# npm install and the llama.cpp clone), LLAMA_SRC (the llama.cpp clone; default the cache's),
# CANITRUN_BUILD (default build-accuracy), JOBS (build jobs, default 2),
# CUDA_PREPARE_NO_BUILD=1 (pack the binaries already in CANITRUN_BUILD without building).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/tools/accuracy/pin.sh"  # nlc_version, llama_commit
cache="${ACCURACY_CACHE:-$HOME/.cache/canitrun-accuracy-$nlc_version}"
src="${LLAMA_SRC:-$cache/llama.cpp}"
nlc="${NLC_DIR:-$cache/npm}/node_modules/node-llama-cpp"
build="${CANITRUN_BUILD:-$root/build-accuracy}"
pack="$root/.accuracy-cuda"

[ -f "$src/include/llama.h" ] || { echo "cuda_prepare: no llama.cpp at $src (run tools/accuracy/run.sh once)" >&2; exit 1; }
[ -d "$nlc/llama" ] || { echo "cuda_prepare: no node-llama-cpp at $nlc (run tools/accuracy/run.sh once)" >&2; exit 1; }

# .accuracy-cuda/ stays out of git; the run tool carries it because carry names it.
exclude="$(git -C "$root" rev-parse --git-path info/exclude)"
case "$exclude" in /*) ;; *) exclude="$root/$exclude" ;; esac
mkdir -p "$(dirname "$exclude")"
grep -qxF '/.accuracy-cuda/' "$exclude" 2>/dev/null || echo '/.accuracy-cuda/' >>"$exclude"

if [ -z "${CUDA_PREPARE_NO_BUILD:-}" ]; then
  cmake -S "$root" -B "$build" -DCANITRUN_ACCURACY_TOOLS=ON -DCANITRUN_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j"${JOBS:-2}" --target canitrun make_gguf >/dev/null
fi
canitrun="$build/canitrun"
make_gguf="$build/tools/accuracy/make_gguf"
for b in "$canitrun" "$make_gguf"; do
  [ -x "$b" ] || { echo "cuda_prepare: $b is missing" >&2; exit 1; }
done

rm -rf "$pack"
mkdir -p "$pack/bin" "$pack/lib"

# A binary and its shared libraries (named by the soname the binary asks for), with the loader.
bundle() {
  local bin="$1" name
  name="$(basename "$bin")"
  strip -o "$pack/bin/$name" "$bin" 2>/dev/null || cp "$bin" "$pack/bin/$name"
  chmod +x "$pack/bin/$name"
  ldd "$bin" | while read -r a b c _; do
    if [ "$b" = "=>" ] && [ -f "$c" ]; then
      [ -f "$pack/lib/$a" ] || cp -L "$c" "$pack/lib/$a"
    elif [ -f "$a" ] && [[ "$a" == */ld-linux* ]]; then
      [ -f "$pack/lib/$(basename "$a")" ] || cp -L "$a" "$pack/lib/$(basename "$a")"
    fi
  done
}
bundle "$canitrun"
bundle "$make_gguf"
loader="$(ls "$pack/lib"/ld-linux-x86-64.so.* 2>/dev/null | head -1)"
[ -n "$loader" ] || { echo "cuda_prepare: no ld-linux-x86-64.so.* among the libraries" >&2; exit 1; }
[ "$(basename "$loader")" = ld-linux-x86-64.so.2 ] || cp "$loader" "$pack/lib/ld-linux-x86-64.so.2"
chmod +x "$pack/lib/ld-linux-x86-64.so.2"
# The bundle must run without this machine's library folders.
"$pack/lib/ld-linux-x86-64.so.2" --library-path "$pack/lib" "$pack/bin/canitrun" --version >/dev/null
mg="$("$pack/lib/ld-linux-x86-64.so.2" --library-path "$pack/lib" "$pack/bin/make_gguf" 2>&1 || true)"
case "$mg" in
  *usage*) ;;
  *) echo "cuda_prepare: the bundled make_gguf does not run: $mg" >&2; exit 1 ;;
esac

# llama.cpp's source: the bundle's HEAD, libllama's part, with node-llama-cpp's patches.
tmp="$(mktemp -d "${TMPDIR:-/tmp}/cuda-prepare.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
git -C "$src" archive --format=tar --prefix=llama.cpp/ HEAD \
  CMakeLists.txt cmake ggml src include vendor licenses LICENSE | tar -x -C "$tmp"
patches=""
for p in "$nlc"/llama/patches/*.diff; do
  [ -f "$p" ] || continue
  if (cd "$tmp/llama.cpp" && git apply --ignore-whitespace -p1 "$p"); then
    patches="$patches $(basename "$p")"
  else
    echo "cuda_prepare: warning: $(basename "$p") does not apply (already in the source?)" >&2
  fi
done
tar -C "$tmp" -czf "$pack/llama.cpp.tar.gz" llama.cpp

{
  echo "llama.cpp: $(git -C "$src" rev-parse HEAD) ($(tr -d ' \n' <"$nlc/llama/llama.cpp.info.json"))"
  echo "patches:${patches:- none}"
  echo "llama.cpp build commit (tools/accuracy/pin.sh): $llama_commit"
  echo "node-llama-cpp: $(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$nlc/package.json" | head -1)"
  echo "canitrun: $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet HEAD -- src include data 2>/dev/null || echo ' + uncommitted changes') ($("$pack/lib/ld-linux-x86-64.so.2" --library-path "$pack/lib" "$pack/bin/canitrun" --version | head -1))"
  echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm)"
} >"$pack/stamp.txt"

size=$(du -sb "$pack" | cut -f1)
cat "$pack/stamp.txt"
echo "cuda_prepare: $pack holds $((size / 1048576)) MiB ($(ls "$pack/lib" | wc -l) libraries)"
if [ "$size" -gt $((60 * 1048576)) ]; then
  echo "cuda_prepare: over 60 MiB: the run tool carries at most 64 MiB in all" >&2
  exit 1
fi
echo "next, on the GPU machine (run tool, carry [\".accuracy-cuda\"], timeout_s 600):"
echo '  set -o pipefail; bash tools/accuracy/cuda.sh 2>&1 | tee "$OUT/log"'
