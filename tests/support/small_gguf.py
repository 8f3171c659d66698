"""A small GGUF file for the Python tests (json_schema_test.py, serve/serve_remote_test.py)."""
import struct


def write_small_llama(path):
    """The small_llama() of tests/file_cli_test.cpp, written with struct (layout per
    ggml/docs/gguf.md): GGUF v3, Llama 3.1 8B's metadata, two tensor infos (token_embd q4_K
    4096 x 128256, output_norm f32 4096), the data section a hole (truncate). Weights:
    128256 rows x 16 q4_K blocks x 144 bytes + 4096 x 4 = 295,518,208 bytes."""

    def string(s):
        return struct.pack("<Q", len(s)) + s.encode()

    def kv(key, type_id, payload):
        return string(key) + struct.pack("<I", type_id) + payload

    def pad(n):
        return (n + 31) // 32 * 32  # general.alignment defaults to 32

    u32 = [("llama.context_length", 131072), ("llama.embedding_length", 4096),
           ("llama.block_count", 32), ("llama.attention.head_count", 32),
           ("llama.attention.head_count_kv", 8), ("llama.feed_forward_length", 14336),
           ("llama.vocab_size", 128256)]
    kvs = [kv("general.architecture", 8, string("llama")),
           kv("general.name", 8, string("Test Llama"))]
    kvs += [kv(k, 4, struct.pack("<I", v)) for k, v in u32]
    embd = 128256 * (4096 // 256) * 144  # q4_K: 256 weights in 144 bytes
    tensors = [("token_embd.weight", [4096, 128256], 12, 0),
               ("output_norm.weight", [4096], 0, pad(embd))]
    header = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    for name, dims, type_id, offset in tensors:
        header += string(name) + struct.pack("<I", len(dims))
        header += b"".join(struct.pack("<Q", d) for d in dims)
        header += struct.pack("<IQ", type_id, offset)
    header += b"\0" * (pad(len(header)) - len(header))
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(len(header) + pad(embd) + pad(4096 * 4))
