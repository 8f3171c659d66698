#!/usr/bin/env bash
# What a remote model costs: the requests and bytes canitrun needs to answer for a GGUF file
# served over HTTP, against the file's own header size (the ratio that matters: issue "Any
# model, no download" asks for at most the header plus 1 MiB, and 4 requests for one file).
# Serves sparse GGUF files with real vocabularies' sizes from tests/support/hub_server.py on
# 127.0.0.1. Usage: bench/remote_reads.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import os, struct, sys
root = sys.argv[1]
def s(b): return struct.pack('<Q', len(b)) + b
def kv_u32(k, v): return s(k) + struct.pack('<I', 4) + struct.pack('<I', v)
def header(vocab):
    kvs = [s(b'general.architecture') + struct.pack('<I', 8) + s(b'llama')]
    for k, v in [(b'llama.context_length', 131072), (b'llama.embedding_length', 4096),
                 (b'llama.block_count', 32), (b'llama.attention.head_count', 32),
                 (b'llama.attention.head_count_kv', 8), (b'llama.feed_forward_length', 14336),
                 (b'llama.vocab_size', vocab)]:
        kvs.append(kv_u32(k, v))
    toks = b''.join(s(('tok%07d' % i).encode()) for i in range(vocab))
    kvs.append(s(b'tokenizer.ggml.tokens') + struct.pack('<I', 9) + struct.pack('<I', 8) +
               struct.pack('<Q', vocab) + toks)
    # As a BPE vocabulary's header has them: a number per token, then the merges.
    kvs.append(s(b'tokenizer.ggml.token_type') + struct.pack('<I', 9) + struct.pack('<I', 5) +
               struct.pack('<Q', vocab) + b'\1\0\0\0' * vocab)
    merges = b''.join(s(('m%d e%d' % (i, i)).encode()) for i in range(vocab - 256))
    kvs.append(s(b'tokenizer.ggml.merges') + struct.pack('<I', 9) + struct.pack('<I', 8) +
               struct.pack('<Q', vocab - 256) + merges)
    t = s(b'token_embd.weight') + struct.pack('<I', 2) + struct.pack('<QQ', 4096, vocab) + \
        struct.pack('<I', 12) + struct.pack('<Q', 0)
    h = b'GGUF' + struct.pack('<IQQ', 3, 1, len(kvs)) + b''.join(kvs) + t
    h += b'\0' * ((32 - len(h) % 32) % 32)
    return h, vocab * 16 * 144
for vocab in (32000, 128256, 151936, 262144):
    h, data = header(vocab)
    d = os.path.join(root, 'hf', 'bench', 'v%d' % vocab)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'model-Q4_K_M.gguf'), 'wb') as f:
        f.write(h)
        f.truncate(len(h) + data)
    with open(os.path.join(d, 'header-bytes'), 'w') as f:
        f.write(str(len(h)))
PY
coproc SERVER { exec python3 tests/support/hub_server.py "$work"; }
read -r port pid <&"${SERVER[0]}"
stats() { python3 -c "import urllib.request,json;d=json.load(urllib.request.urlopen('http://127.0.0.1:$port/__stats'));print(d['requests'],d['bytes'])"; }
printf '%-8s %12s %10s %12s %8s\n' vocab header_B requests bytes_B ratio
for vocab in 32000 128256 151936 262144; do
  hdr=$(cat "$work/hf/bench/v$vocab/header-bytes")
  read -r r0 b0 < <(stats)
  XDG_CACHE_HOME="$work/cache-$vocab" NO_PROXY=127.0.0.1 \
    "$build/canitrun" "http://127.0.0.1:$port/cdn/bench/v$vocab/model-Q4_K_M.gguf" >/dev/null
  read -r r1 b1 < <(stats)
  awk -v v="$vocab" -v h="$hdr" -v r=$((r1 - r0)) -v b=$((b1 - b0)) \
    'BEGIN { printf "%-8s %12d %10d %12d %8.2f\n", v, h, r, b, b / h }'
done
