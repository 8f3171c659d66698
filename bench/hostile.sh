#!/usr/bin/env bash
# Issue #39's bounds, measured: every hostile remote input (from tests/support/hub_server.py on
# loopback) must end under 512 MiB of peak memory and within --timeout + 5 s; every hostile
# local file under 512 MiB. Each case runs the binary under /usr/bin/time -v and prints its
# exit code, peak RSS and wall time; the script fails if any case is over its bound.
# Usage: bench/hostile.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$(realpath "$build/canitrun")
timeout_s=3
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import os, struct, sys
root = sys.argv[1]
def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)
def s(b): return struct.pack('<Q', len(b)) + b
def kv_u32(k, v): return s(k) + struct.pack('<I', 4) + struct.pack('<I', v)
def llama_kvs():
    kvs = [s(b'general.architecture') + struct.pack('<I', 8) + s(b'llama')]
    for k, v in [(b'llama.context_length', 8192), (b'llama.embedding_length', 4096),
                 (b'llama.block_count', 32), (b'llama.attention.head_count', 32),
                 (b'llama.attention.head_count_kv', 8), (b'llama.feed_forward_length', 14336)]:
        kvs.append(kv_u32(k, v))
    return kvs
def gguf(extra_kvs, n_extra, path, size=None, split=None):
    kvs = llama_kvs()
    if split:
        kvs += [s(b'split.no') + struct.pack('<I', 2) + struct.pack('<H', split[0]),
                s(b'split.count') + struct.pack('<I', 2) + struct.pack('<H', split[1])]
    with open(path, 'wb') as f:
        f.write(b'GGUF' + struct.pack('<IQQ', 3, 0, len(kvs) + n_extra) + b''.join(kvs))
        for chunk in extra_kvs:
            f.write(chunk)
        f.write(b'\0' * ((32 - f.tell() % 32) % 32))  # the data section's alignment
        if size:
            f.truncate(size)
# 1 GiB of metadata strings: 250,000 keys of 4 KiB values (the first 200 MiB written, the
# rest a hole: the reader stops at its 64 MiB budget long before).
def strings(n):
    value = b'x' * 4096
    for i in range(n):
        yield s(b'k%07d' % i) + struct.pack('<I', 8) + s(value)
os.makedirs(os.path.join(root, 'local'), exist_ok=True)
gguf(strings(50000), 250000, os.path.join(root, 'local', 'strings.gguf'), size=1 << 30)
# Bool arrays of 65,536: 63 of them hold 63 x 512 KiB, just under the budget (the worst a
# header that is answered can cost).
def bools(n):
    for i in range(n):
        yield s(b'b%03d' % i) + struct.pack('<I', 9) + struct.pack('<I', 7) + \
              struct.pack('<Q', 65536) + b'\1' * 65536
gguf(bools(120), 120, os.path.join(root, 'local', 'bools.gguf'))
deep = b'[' * (8 << 20) + b']' * (8 << 20)
wide = b'[' + b'[],' * ((16 << 20) // 3 - 2) + b'[]]'
# Just under the bound, which counts containers and commas: 2^19 empty arrays count 2^20.
under = b'[' + b'[],' * ((1 << 19) - 8) + b'[]]'
for name, text in [('deep', deep), ('wide', wide), ('under', under)]:
    write(os.path.join(root, 'local', name, 'config.json'), text)
# The Hub's side.
hf = os.path.join(root, 'hf', 'bench')
write(os.path.join(hf, 'deep-tree', '.tree'), b'[' * (60 << 20))
write(os.path.join(hf, 'wide-tree', '.tree'), b'[' + b'{},' * ((8 << 20) // 3 - 2) + b'{}]')
write(os.path.join(hf, 'deep-config', 'config.json'), b'[' * (60 << 20))
write(os.path.join(hf, 'wide-config', 'config.json'), wide)
write(os.path.join(hf, 'under-config', 'config.json'), under)
cfg = (b'{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, '
       b'"num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, '
       b'"intermediate_size": 14336, "max_position_embeddings": 8192}')
write(os.path.join(hf, 'shards', 'config.json'), cfg)
for i in range(2000):
    write(os.path.join(hf, 'shards', 'model-%05d-of-02000.safetensors' % (i + 1)),
          struct.pack('<Q', 2) + b'{}')
os.makedirs(os.path.join(hf, 'strings'), exist_ok=True)
gguf(strings(50000), 250000, os.path.join(hf, 'strings', 'Strings-Q4_K_M.gguf'), size=1 << 30)
os.makedirs(os.path.join(hf, 'split'), exist_ok=True)
for part in (1, 2):
    gguf(bools(70), 70, os.path.join(hf, 'split', 'Split-Q4_K_M-%05d-of-00002.gguf' % part),
         split=(part - 1, 2))
PY
cp -r data "$work/data"
python3 -c "import sys; sys.stdout.write('[' + '{},' * ((60 << 20) // 3) + '{}]')" \
    > "$work/data/quants.json"

exec 3< <(python3 tests/support/hub_server.py "$work")
read -r port pid _ <&3
base="http://127.0.0.1:$port"
export HF_ENDPOINT=$base XDG_CACHE_HOME=$work/cache HOME=$work/home HF_TOKEN= HF_HUB_OFFLINE=
export NO_PROXY=127.0.0.1,127.0.0.2 no_proxy=127.0.0.1,127.0.0.2

failed=0
printf '%-30s %5s %9s %8s  %s\n' case exit "peak MiB" seconds "bound"
run() {  # name, kind (remote|local), args...
    local name=$1 kind=$2
    shift 2
    local out
    out=$(/usr/bin/time -f '%M %e' "$bin" "$@" 2>&1 >/dev/null | tail -1) || true
    local rc
    "$bin" "$@" >/dev/null 2>&1 && rc=0 || rc=$?  # the exit code, from a second run
    local kib=${out% *} secs=${out#* }
    local mib=$((kib / 1024)) bound="512 MiB" over=0
    [ "$mib" -ge 512 ] && over=1
    if [ "$kind" = remote ]; then
        bound="512 MiB, $((timeout_s + 5)) s"
        awk -v s="$secs" -v l=$((timeout_s + 5)) 'BEGIN { exit !(s >= l) }' && over=1
    fi
    [ "$over" = 1 ] && { bound="$bound  OVER"; failed=1; }
    printf '%-30s %5s %9s %8s  %s\n' "$name" "$rc" "$mib" "$secs" "$bound"
}
t=(--timeout "$timeout_s")
run "trickling body" remote "$base/bad/trickle/x.gguf" "${t[@]}"
run "Retry-After storm" remote "$base/bad/retry-storm/x.gguf" "${t[@]}"
run "server that hangs" remote "$base/bad/hang/x.gguf" "${t[@]}"
run "listing 60 MiB deep" remote hf:bench/deep-tree "${t[@]}"
run "listing of 2.8M values" remote hf:bench/wide-tree "${t[@]}"
run "config.json 60 MiB deep" remote hf:bench/deep-config "${t[@]}"
run "config.json 5.6M values" remote hf:bench/wide-config "${t[@]}"
run "config.json 0.5M arrays" remote hf:bench/under-config "${t[@]}"
run "2,000 safetensors shards" remote hf:bench/shards "${t[@]}"
run "GGUF, 1 GiB of strings" remote hf:bench/strings:Q4_K_M "${t[@]}"
run "split GGUF, 2 x 35 MiB held" remote hf:bench/split:Q4_K_M "${t[@]}"
run "local GGUF, 1 GiB strings" local "$work/local/strings.gguf"
run "local GGUF, 60 MiB held" local "$work/local/bools.gguf"
run "local config.json deep" local "$work/local/deep"
run "local config.json 5.6M values" local "$work/local/wide"
run "local config.json 0.5M arrays" local "$work/local/under"
run "--data file of 21M values" local llama-3.1-8b --data "$work/data"
[ -n "${HOSTILE_KEEP:-}" ] && { echo "kept: $work"; trap - EXIT; kill $pid; }
exit $failed
