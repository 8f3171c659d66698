#pragma once
// A llama.cpp / llama-server log as data: the model's metadata and print_info lines, the model
// buffers, and for every context it built the context parameters and the output, KV, recurrent
// state (RS) and compute buffers. Pure: takes the log's text. Lines it does not know are
// skipped, so a log from another llama.cpp version or a truncated one yields what it holds.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/gguf.hpp"

namespace canitrun {

// The most GPUs one llama.cpp process drives (GGML_CUDA_MAX_DEVICES): what the readers bound
// a log's device lists by.
inline constexpr std::size_t kGgmlMaxDevices = 16;

inline constexpr std::size_t kMaxLogLineBytes = 4096;

struct LlamaLogBuffer {
    std::string device;  // "CPU", "CUDA0", "CPU_Mapped"
    Bytes bytes = 0;     // the log's MiB (two decimals) x 1048576, rounded
};

struct LlamaLogContext {
    std::uint64_t n_ctx = 0;
    std::uint64_t n_ctx_seq = 0;
    std::uint64_t n_batch = 0;
    std::uint64_t n_ubatch = 0;
    std::uint64_t n_seq_max = 0;
    // The outputs the graph is reserved for, where the build prints it (llama.cpp PR #23861 on:
    // n_batch unless llama-server caps it); 0 in older builds, which reserve every token.
    std::uint64_t n_outputs_max = 0;
    // As printed: "enabled", "disabled", "auto", "0", "1" (builds before mid 2025), or the
    // "Flash Attention was auto, set to enabled" line's outcome.
    std::string flash_attn;
    std::string kv_unified;      // "true" / "false" where the build prints it
    std::string type_k, type_v;  // from the KV "size = ..." line
    std::vector<LlamaLogBuffer> output, kv, recurrent, compute;
};

struct LlamaLogKv {
    std::string type;   // "u32", "str", "arr[i32,4]"
    std::string value;  // as printed (cut at 40 characters by llama.cpp, ending "...")
};

// A device the log names: "CUDA0" with its name from ggml_cuda_init's list and the free memory
// llama.cpp saw when it loaded the model ("using device CUDA0 (...) - 23041 MiB free").
struct LlamaLogDevice {
    std::string device;
    std::string name;
    std::optional<Bytes> free;
};

// What llama-server says about what it holds beside the model: its prompt cache's limit at
// load ("prompt cache is enabled, size limit: 8192 MiB"; "... disabled"), and the context
// checkpoints it made while serving ("created context checkpoint 2 of 8 (pos_min = ...,
// size = 62.813 MiB)"): the per-slot limit and the largest one.
struct LlamaLogServer {
    std::optional<Bytes> prompt_cache_limit;  // 0: disabled
    bool prompt_cache_unlimited = false;      // "size limit: no limit" (--cache-ram -1)
    std::uint64_t checkpoints_per_slot = 0;
    Bytes checkpoint_largest = 0;
};

// A line about memory the reader left unread: its number in the text (from 1) and why.
struct LlamaLogUnread {
    std::uint64_t line = 0;
    std::string reason;
    std::string text;  // the line without its prefix, cut to kUnreadTextBytes (empty: too long)
};
inline constexpr std::size_t kUnreadTextBytes = 100;

// What llama-server builds beside the main model for speculative decoding, as 0ad4a86 prints it
// (common/speculative.cpp, after the main model's context): a draft model ("loading draft model
// 'PATH'", --model-draft) with its own weights and context, or a second context of the main
// model for its MTP layers ("creating MTP draft context against the target model", --spec-type
// draft-mtp). Their buffers are kept here, apart from the main model's: read as the main
// model's, the draft's metadata, free memory and offloaded layers replaced the main model's and
// its buffers and context joined them.
struct LlamaLog;
struct LlamaLogDraft {
    bool mtp = false;  // the main model's MTP context, no weights of its own
    std::vector<LlamaLogBuffer> model_buffers;  // the draft model's weights
    std::vector<LlamaLogContext> contexts;
    // The draft's lines read as a log of their own: a draft model's metadata and print_info
    // lines name it and its file type, as the main model's do (verify plans it from them).
    std::shared_ptr<const LlamaLog> own;
};

struct LlamaLog {
    std::map<std::string, LlamaLogKv> metadata;     // "llama.block_count" -> {u32, 32}
    std::map<std::string, std::string> print_info;  // "n_layer" -> "32"
    std::vector<LlamaLogBuffer> model_buffers;
    std::vector<LlamaLogContext> contexts;
    std::optional<std::uint64_t>
        tensor_count;  // "loaded meta data with 17 key-value pairs and 292 tensors"
    // The file's tensors per type as the loader counts them ("- type  q4_K:   77 tensors"), in
    // the log's order: what a publisher's recipe made of the file, whatever its file type says.
    std::vector<std::pair<std::string, std::uint64_t>> type_counts;
    // The file that line loads, without its folders ("Qwen3.6-35B-A3B-UD-Q4_K_M.gguf"): a
    // publisher's recipe (Unsloth's UD-*) shows in the name, not in the file type.
    // llama.cpp's build number where the log prints it ("build: 7772 (287a33017)"; 0 and 1
    // are what a build without git history prints, read as none)
    std::optional<std::uint64_t> build;
    std::string file_name;
    // The Hub repo it was downloaded from, where its path is huggingface_hub's cache
    // (".../models--unsloth--Qwen3.6-27B-GGUF/snapshots/..."): "unsloth/Qwen3.6-27B-GGUF".
    std::string file_repo;
    std::vector<LlamaLogDevice> devices;
    // "offloaded 33/33 layers to GPU": layers on the GPUs and all (the output head counts)
    std::optional<std::uint64_t> gpu_layers, all_layers;
    // "offloading 39 repeating layers to GPU", and whether "offloading output layer to GPU"
    // (2024: "offloading non-repeating layers to GPU") follows or precedes it.
    std::optional<std::uint64_t> repeating_layers;
    bool output_layer_offloaded = false;
    // "loading model tensors, this can take a while... (mmap = true": whether the weights were
    // mapped from the file (llama.cpp's default) or read in; nullopt where the log does not say.
    std::optional<bool> mmap;
    // Layers whose routed experts a buffer-type override put elsewhere ("tensor
    // blk.7.ffn_up_exps.weight ... overridden to CPU"), by layer, with that buffer type.
    std::map<std::uint64_t, std::string> expert_overrides;
    // The command line the run was started with, where the text records it: a "# settings:"
    // line, as the published logs of validation/llama-logs/ carry.
    std::string command_line;
    LlamaLogServer server;
    std::uint64_t recognized_lines = 0;
    // Lines longer than kMaxLogLineBytes, skipped unread: no line llama.cpp prints about memory
    // comes near it (the line shapes are matched by hand, src/core/files/log_lines.cpp).
    std::uint64_t skipped_long_lines = 0;
    // Every line about memory (one that gives a buffer size or MiB) left unread, each with its
    // number and reason, long ones included: verify names them all.
    std::vector<LlamaLogUnread> unread_lines;
    // The vision / audio projector's buffer lines (mtmd's clip.cpp, "alloc_compute_meta: MTL0
    // compute buffer size = ..."): its own context, not the text model's, so left unread.
    std::uint64_t projector_lines = 0;
    // What those lines print: the projector's tensors ("load_hparams: model size: 945.51 MiB")
    // and clip's compute buffers on its device and on the CPU ("alloc_compute_meta: CUDA0
    // compute buffer size = 248.10 MiB", "... CPU compute buffer size = 24.93 MiB").
    std::optional<Bytes> projector_model;
    std::optional<Bytes> projector_compute;
    std::optional<Bytes> projector_host_compute;
    std::optional<LlamaLogDraft> draft;

    std::string arch() const;                       // print_info arch, else general.architecture
    std::string file_type() const;                  // "Q4_K - Medium"
    std::optional<double> params_billions() const;  // "model params = 8.03 B"
    std::optional<Bytes> file_size() const;         // "file size = 4.58 GiB" (rounded)
};

// True for a buffer type in host memory: CPU, CPU_Mapped, CPU_REPACK, CUDA_Host, ROCm_Host ...
bool is_host_buffer(const std::string& buffer_type);

// "4685.30" MiB -> bytes (rounded to the nearest byte).
Bytes mib_to_bytes(const std::string& mib);
// "4.58" in units of `unit` bytes -> bytes, rounded to the nearest byte; 0 when unreadable.
Bytes decimal_to_bytes(const std::string& number, std::uint64_t unit);

// Error only when nothing at all is recognizable.
Result<LlamaLog> parse_llama_log(const std::string& text);

// The log's metadata lines (and print_info where they are missing or cut) as a GGUF header
// without tensors, for gguf_to_model.
GgufFile llama_log_metadata(const LlamaLog& log);

}  // namespace canitrun
