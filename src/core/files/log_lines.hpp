#pragma once
// The shapes of the llama.cpp log lines canitrun reads, matched by hand: a log is outside input
// of any length, and std::regex backtracks (and recurses) on long lines. Each matcher takes one
// line and returns its fields, or nothing when the line has another shape.

#include <optional>
#include <string_view>

namespace canitrun::log_lines {

// The line from its llama.cpp tag on ("llama_context:", "print_info:", "load_tensors:", ...),
// whatever stands before it: a time stamp, journald's "host ollama[12]:", Ollama's or another
// program's prefix. A line with no known tag is returned whole.
std::string_view without_prefix(std::string_view line);

// "loaded meta data with 17 key-value pairs and 292 tensors": "292"
std::optional<std::string_view> tensor_count(std::string_view line);

// "... 733 tensors from /models/Qwen3.6-35B-A3B-UD-Q4_K_M.gguf (version GGUF V3 (latest))":
// "Qwen3.6-35B-A3B-UD-Q4_K_M.gguf", the loaded file's name without its folders.
std::optional<std::string_view> loaded_file_name(std::string_view line);

// The Hugging Face repo the same line's path downloaded into, where it is a huggingface_hub
// cache path (".../hub/models--unsloth--Qwen3.6-27B-GGUF/snapshots/..."):
// "unsloth/Qwen3.6-27B-GGUF".
std::optional<std::string> loaded_file_repo(std::string_view line);

// llama.cpp's build number: "build: 7772 (287a33017) with GNU ...", "main: build = 3215
// (d62e4aaa)", "build_info: b8854-de71b5f81"
std::optional<std::string_view> build_number(std::string_view line);

// "llama_model_loader: - kv   0:   general.architecture str = llama"
struct Kv {
    std::string_view key, type, value;
};
std::optional<Kv> kv(std::string_view line);

// "print_info: n_layer          = 32": {"n_layer", "32"} (the key with spaces trimmed); also
// 2024's "llm_load_print_meta: n_layer = 32"
struct Pair {
    std::string_view key, value;
};
std::optional<Pair> print_info(std::string_view line);

// llama_model_loader's count of the file's tensors of one type: "llama_model_loader: - type
// q4_K:   77 tensors" gives {"q4_K", "77"}.
std::optional<Pair> type_count(std::string_view line);

// "llama_context: n_ctx         = 4096" for n_ctx, n_ctx_seq (n_ctx_per_seq before late 2025),
// n_batch, n_ubatch, n_seq_max, flash_attn, kv_unified (also under the older
// "llama_new_context_with_model:" prefix)
std::optional<Pair> context_param(std::string_view line);

// "<device> <phrase> = <number> MiB", for phrases such as "model buffer size": {device, number}.
// `spaces_before`: the device may be followed by several spaces (the output buffer line).
std::optional<Pair> buffer(std::string_view line, std::string_view phrase, bool spaces_before);

// "... size = 256.00 MiB (...), K (f16): 128.00 MiB, V (f16): 128.00 MiB": {"f16", "f16"}; any
// spaces before the "=" (2024's "KV self size  =")
std::optional<Pair> kv_types(std::string_view line);

// 2024's model buffer: "llm_load_tensors:      CUDA0 buffer size =  4403.49 MiB": {device, MiB}
std::optional<Pair> old_model_buffer(std::string_view line);

// "offloaded 33/33 layers to GPU": {"33", "33"}
std::optional<Pair> offloaded(std::string_view line);
// "offloading 39 repeating layers to GPU": "39"
std::optional<std::string_view> repeating_offloaded(std::string_view line);
// "offloading output layer to GPU" (2024: "offloading non-repeating layers to GPU")
bool output_offloaded(std::string_view line);

// "using device CUDA0 (NVIDIA GeForce RTX 3090) - 23041 MiB free": {"CUDA0", "23041"}
std::optional<Pair> device_free(std::string_view line);

// "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes" (CUDA and HIP):
// {"0", "NVIDIA GeForce RTX 3090"}
std::optional<Pair> cuda_device(std::string_view line);

// "tensor blk.7.ffn_up_exps.weight (134 MiB q4_K) buffer type overridden to CPU":
// {"7", "CPU"} for a routed-expert tensor (-ot, --n-cpu-moe, --cpu-moe)
std::optional<Pair> expert_override(std::string_view line);

}  // namespace canitrun::log_lines
