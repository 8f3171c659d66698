#pragma once
// The shapes of the llama.cpp log lines canitrun reads, matched by hand: a log is outside input
// of any length, and std::regex backtracks (and recurses) on long lines. Each matcher takes one
// line and returns its fields, or nothing when the line has another shape.

#include <optional>
#include <string_view>

namespace canitrun::log_lines {

// "loaded meta data with 17 key-value pairs and 292 tensors": "292"
std::optional<std::string_view> tensor_count(std::string_view line);

// "llama_model_loader: - kv   0:   general.architecture str = llama"
struct Kv {
    std::string_view key, type, value;
};
std::optional<Kv> kv(std::string_view line);

// "print_info: n_layer          = 32": {"n_layer", "32"} (the key with spaces trimmed)
struct Pair {
    std::string_view key, value;
};
std::optional<Pair> print_info(std::string_view line);

// "llama_context: n_ctx         = 4096" for n_ctx, n_ctx_seq, n_batch, n_ubatch, n_seq_max,
// flash_attn (also under the older "llama_new_context_with_model:" prefix)
std::optional<Pair> context_param(std::string_view line);

// "<device> <phrase> = <number> MiB", for phrases such as "model buffer size": {device, number}.
// `spaces_before`: the device may be followed by several spaces (the output buffer line).
std::optional<Pair> buffer(std::string_view line, std::string_view phrase, bool spaces_before);

// "... size = 256.00 MiB (...), K (f16): 128.00 MiB, V (f16): 128.00 MiB": {"f16", "f16"}
std::optional<Pair> kv_types(std::string_view line);

}  // namespace canitrun::log_lines
