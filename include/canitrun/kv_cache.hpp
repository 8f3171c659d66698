#pragma once
// What each layer keeps per sequence: the KV cache that grows with context (full attention,
// sliding window capped at its window, MLA's latent), and the fixed recurrent state of linear
// attention and SSM layers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

// Element type of the KV cache, as a block of `block_elements` values stored in `block_bytes`
// bytes (ggml's layout: q8_0 keeps 32 values in 34 bytes).
struct KvType {
    std::string id;
    std::uint64_t block_elements = 1;
    std::uint64_t block_bytes = 2;
    std::string source;

    bool operator==(const KvType&) const = default;
};

// The KV cache type when none is asked: llama.cpp's default --cache-type-k / -v
// (common/common.h, cache_type_k = GGML_TYPE_F16), which Ollama and every view here share.
inline constexpr std::string_view kDefaultKvType = "f16";

Result<KvType> parse_kv_type(const std::string& text);
const KvType* find_kv_type(std::string_view text);  // any case; nullptr if none
std::string kv_type_names();  // "f16, bf16, f32, q8_0, ..." for help and errors
// The types above that llama.cpp's --cache-type-k / -v take (every one that is a ggml type),
// the one list the engine's parser, its errors and the flag table read.
bool is_llamacpp_kv_type(const KvType& type);
std::string llamacpp_kv_type_names();  // "f16, bf16, ..., iq4_nl"

// Elements cached per token by one layer of the group (K and V together). Zero for
// recurrent layers.
std::uint64_t kv_elements_per_token(const Model& model, const LayerGroup& group);

// Tokens one layer of the group keeps at `context`: all of them for full attention and MLA,
// at most `window` for sliding layers, none for recurrent ones.
std::uint64_t cached_tokens(const LayerGroup& group, std::uint64_t context);

// The entries a compressed layer keeps at `context`: one per compress_ratio tokens, the last
// partial (llama-kv-cache-dsv4.cpp's dsv4_comp_size); 0 for other kinds.
std::uint64_t compressed_entries(const LayerGroup& group, std::uint64_t context);

// Elements one layer of the group caches at `context` (one sequence, no padding): per token
// times the tokens it keeps, and a compressed layer's entries.
std::uint64_t cached_elements(const Model& model, const LayerGroup& group, std::uint64_t context);

// Layers that keep a KV cache of their own: all but the last arch.shared_kv_layers (which read
// an earlier layer's, as llama.cpp's n_layer_kv_from_start and vLLM's KV sharing do).
std::uint64_t kv_owning_layers(const Model& model);
// Per layer group, how many of its layers keep their own cache (stack order, layer_kinds.hpp).
std::vector<std::uint64_t> kv_owner_counts(const Model& model);
// Layers of this kind that keep a cache of their own.
std::uint64_t count_kv_layers(const Model& model, LayerKind kind);
// Layers whose own cache grows with the context (full, sliding, MLA).
std::uint64_t count_kv_layers(const Model& model);

// Layers with a cache of their own that grows with the context: full attention, MLA, and
// DeepSeek V4's compressed layers (their entries; not a sliding or window-only layer).
std::uint64_t count_growing_layers(const Model& model);

// The KV cache of the whole model at `context` tokens, one sequence.
Bytes kv_cache_bytes(const Model& model, std::uint64_t context, const KvType& type);

// The same model if every layer were full attention with its attention dims (the page's
// comparison).
Bytes all_attention_kv_cache_bytes(const Model& model, std::uint64_t context, const KvType& type);

// The fixed recurrent state of the linear-attention and SSM layers, in f32 as llama.cpp keeps
// it: conv state (kernel - 1) x channels plus the recurrent matrix.
Bytes recurrent_state_bytes(const Model& model);

// The same for one layer of the group (0 for attention layers).
Bytes layer_recurrent_state_bytes(const LayerGroup& group);

// The n-gram embedding's convolution history on its one layer, per sequence: (conv_kernel - 1)
// x ngram_size columns (the convolution is dilated by the n-gram size) of the hyper-connection
// streams, in f32 (llama_hparams::ple_conv_state, cache_ple_r_l); 0 without one.
Bytes ngram_conv_state_bytes(const Model& model);

}  // namespace canitrun
