#include "canitrun/kv_cache.hpp"

#include "canitrun/layer_kinds.hpp"

#include <array>

#include "canitrun/ggml_type.hpp"
#include "canitrun/name_match.hpp"

namespace canitrun {
namespace {

// A KV cache type that is a ggml type: its block layout is ggml's, from the one table every
// tensor size is built from (ggml_type.hpp), never a second copy.
constexpr std::string_view kTurboQuant = "turboquant";

KvType ggml_kv(std::string_view name, const char* source) {
    const GgmlType t = find_ggml_type(name).value();
    return {std::string(name), t.block_elements, t.block_bytes, source};
}

// The KV cache types canitrun plans: ggml's (llama.cpp's --cache-type-k / -v), and TurboQuant
// (Zandieh et al. 2025, arXiv:2504.19874), which reports quality-neutral KV at 3.5 bits per
// value: 7 bytes per 16 values. A function-local static: built on first use, where an
// exception can still be caught.
const std::array<KvType, 10>& kv_types() {
    static const std::array<KvType, 10> types = {{
        ggml_kv("f16", "ggml GGML_TYPE_F16"),
        ggml_kv("bf16", "ggml GGML_TYPE_BF16"),
        ggml_kv("f32", "ggml GGML_TYPE_F32"),
        ggml_kv("q8_0", "ggml-common.h block_q8_0"),
        ggml_kv("q5_1", "ggml-common.h block_q5_1"),
        ggml_kv("q5_0", "ggml-common.h block_q5_0"),
        ggml_kv("q4_1", "ggml-common.h block_q4_1"),
        ggml_kv("q4_0", "ggml-common.h block_q4_0"),
        ggml_kv("iq4_nl", "ggml-common.h block_iq4_nl"),
        {std::string(kTurboQuant), 16, 7, "TurboQuant, arXiv:2504.19874: 3.5 bits per value"},
    }};
    return types;
}

Bytes elements_to_bytes(std::uint64_t elements, const KvType& type) {
    return checked::mul_div_ceil(elements, type.block_bytes, type.block_elements);
}

}  // namespace

// The ids are lowercase, so this is to_lower(text) == id without the copy: cache_setup asks it
// twice for each of some 400 buffer questions of one model page.
const KvType* find_kv_type(std::string_view text) {
    for (const auto& t : kv_types()) {
        if (equals_ignoring_case(t.id, text)) return &t;
    }
    return nullptr;
}

Result<KvType> parse_kv_type(const std::string& text) {
    if (const KvType* t = find_kv_type(text)) return *t;
    return fail(ErrorKind::bad_input, "unknown KV cache type '" + text + "'",
                "use one of: " + kv_type_names());
}

std::string kv_type_names() {
    std::string out;
    for (const auto& t : kv_types()) out += (out.empty() ? "" : ", ") + t.id;
    return out;
}

// TurboQuant is the one type here that is not ggml's: llama.cpp has no such cache type.
bool is_llamacpp_kv_type(const KvType& type) {
    return type.id != kTurboQuant;
}

std::string llamacpp_kv_type_names() {
    std::string out;
    for (const auto& t : kv_types()) {
        if (is_llamacpp_kv_type(t)) out += (out.empty() ? "" : ", ") + t.id;
    }
    return out;
}

std::uint64_t kv_elements_per_token(const Model& model, const LayerGroup& group) {
    switch (group.kind) {
        case LayerKind::full:
        case LayerKind::sliding: {
            const AttentionDims d = attention_dims(model, group);
            const std::uint64_t kv = checked::mul(d.kv_heads, checked::add(d.k_dim, d.v_dim));
            // MSA's indexer cache: its key and a V it never reads (llama_kv_cache_msa); QSA's
            // (compress_ratio, qwen4exp) its key alone (llama_memory_hybrid_idx)
            if (group.index_head_dim == 0) return kv;
            const std::uint64_t unread_v = group.compress_ratio > 0 ? 0 : d.v_dim;
            return checked::add(kv, checked::add(group.index_head_dim, unread_v));
        }
        case LayerKind::mla:
            // One compressed latent plus the decoupled rope key per token, shared by all heads,
            // and the sparse-attention indexer's key where the model has one. No V, flash
            // attention on or off, as the pinned llama.cpp (llamacpp_engine.cpp's group_cache
            // names the older builds that kept a V of kv_lora_rank values too).
            return checked::add(checked::add(group.kv_lora_rank, group.qk_rope_head_dim),
                                group.index_head_dim);
        case LayerKind::compressed: {
            // the raw window's K, which doubles as V
            const AttentionDims d = attention_dims(model, group);
            return checked::mul(d.kv_heads, d.k_dim);
        }
        case LayerKind::linear:
        case LayerKind::ssm:
        case LayerKind::conv:
        case LayerKind::ffn:
            return 0;
    }
    return 0;
}

std::uint64_t cached_tokens(const LayerGroup& group, std::uint64_t context) {
    switch (group.kind) {
        case LayerKind::full:
        case LayerKind::mla:
            // an MLA group with a window (dots3note's sliding MLA) keeps only that
            if (keeps_window(group)) return std::min(group.window, context);
            return context;
        case LayerKind::sliding:
        case LayerKind::compressed:
            return group.window < context ? group.window : context;
        case LayerKind::linear:
        case LayerKind::ssm:
        case LayerKind::conv:
        case LayerKind::ffn:
            return 0;
    }
    return 0;
}

std::uint64_t kv_owning_layers(const Model& model) {
    const std::uint64_t n = model.arch.layers;
    return n > model.arch.shared_kv_layers ? n - model.arch.shared_kv_layers : 0;
}

std::vector<std::uint64_t> kv_owner_counts(const Model& model) {
    std::vector<std::uint64_t> owners(model.arch.layer_groups.size(), 0);
    if (model.arch.shared_kv_layers == 0) {
        for (std::size_t g = 0; g < owners.size(); ++g)
            owners[g] = model.arch.layer_groups[g].count;
        return owners;
    }
    const auto order = layer_group_order(model);
    const std::uint64_t keep = kv_owning_layers(model);
    for (std::size_t i = 0; i < order.size() && i < keep; ++i) ++owners[order[i]];
    return owners;
}

std::uint64_t count_kv_layers(const Model& model, LayerKind kind) {
    const std::vector<std::uint64_t> owners = kv_owner_counts(model);
    std::uint64_t n = 0;
    for (std::size_t g = 0; g < owners.size(); ++g) {
        if (model.arch.layer_groups[g].kind == kind) n += owners[g];
    }
    return n;
}

std::uint64_t count_kv_layers(const Model& model) {
    return count_kv_layers(model, LayerKind::full) + count_kv_layers(model, LayerKind::sliding) +
           count_kv_layers(model, LayerKind::mla) + count_kv_layers(model, LayerKind::compressed);
}

std::uint64_t compressed_entries(const LayerGroup& group, std::uint64_t context) {
    if (group.kind != LayerKind::compressed || group.compress_ratio == 0) return 0;
    return checked::mul_div_ceil(context, 1, group.compress_ratio);
}

std::uint64_t cached_elements(const Model& model, const LayerGroup& group, std::uint64_t context) {
    const std::uint64_t raw =
        checked::mul(kv_elements_per_token(model, group), cached_tokens(group, context));
    const std::uint64_t entries = compressed_entries(group, context);
    if (entries == 0) return raw;
    // a compressed entry is as wide as the raw K, with the indexer's key beside it
    const std::uint64_t per_entry =
        checked::add(kv_elements_per_token(model, group), group.index_head_dim);
    return checked::add(raw, checked::mul(per_entry, entries));
}

std::uint64_t count_growing_layers(const Model& model) {
    const std::vector<std::uint64_t> owners = kv_owner_counts(model);
    std::uint64_t n = 0;
    for (std::size_t g = 0; g < owners.size(); ++g) {
        const LayerGroup& group = model.arch.layer_groups[g];
        const bool grows = attends_every_token(group) ||
                           (group.kind == LayerKind::compressed && group.compress_ratio > 0);
        n += grows ? owners[g] : 0;
    }
    return n;
}

Bytes kv_cache_bytes(const Model& model, std::uint64_t context, const KvType& type) {
    const std::vector<std::uint64_t> owners = kv_owner_counts(model);
    std::uint64_t elements = 0;
    for (std::size_t g = 0; g < owners.size(); ++g) {
        const LayerGroup& group = model.arch.layer_groups[g];
        const std::uint64_t per_layer = cached_elements(model, group, context);
        elements = checked::add(elements, checked::mul(per_layer, owners[g]));
    }
    return elements_to_bytes(elements, type);
}

Bytes all_attention_kv_cache_bytes(const Model& model, std::uint64_t context, const KvType& type) {
    return kv_cache_bytes(all_attention_variant(model), context, type);
}

Bytes layer_recurrent_state_bytes(const LayerGroup& g) {
    std::uint64_t per_layer = 0;
    if (g.kind == LayerKind::linear) {
        const std::uint64_t key_dim = checked::mul(g.key_heads, g.key_head_dim);
        const std::uint64_t value_dim = checked::mul(g.value_heads, g.value_head_dim);
        const std::uint64_t conv_channels = checked::add(checked::mul(2, key_dim), value_dim);
        const std::uint64_t conv = checked::mul(g.conv_kernel - 1, conv_channels);
        const std::uint64_t state =
            checked::mul(g.value_heads, checked::mul(g.key_head_dim, g.value_head_dim));
        per_layer = checked::add(conv, state);
    } else if (g.kind == LayerKind::ssm || has_parallel_ssm(g)) {
        const std::uint64_t conv_channels =
            checked::add(g.inner_size, checked::mul(2, checked::mul(g.groups, g.state_size)));
        const std::uint64_t conv = checked::mul(g.conv_kernel - 1, conv_channels);
        const std::uint64_t state = checked::mul(g.state_size, g.inner_size);
        per_layer = checked::add(conv, state);
    } else if (g.kind == LayerKind::conv) {
        // llama.cpp's n_embd_r for LFM2: (L_cache - 1) x n_embd, and no s state
        per_layer = checked::mul(g.conv_kernel - 1, g.inner_size);
    } else if (g.kind == LayerKind::compressed && g.compress_ratio > 0) {
        // the compressors' running kv and score planes (llama-kv-cache-dsv4.cpp): ratio 4
        // keeps 8 rows of 2 x head_dim, and its indexer 8 rows of 2 x index_head_dim; the
        // heavy ratio keeps 128 rows of head_dim; each a kv and a score plane
        const std::uint64_t rows = g.compress_ratio == 4 ? 8 : g.compress_ratio;
        const std::uint64_t width = g.compress_ratio == 4 ? 2 : 1;
        const std::uint64_t head = g.head_dim;
        per_layer = checked::mul(checked::mul(2, rows),
                                 checked::mul(width, checked::add(head, g.index_head_dim)));
    }
    return checked::mul(per_layer, kF32Bytes);
}

Bytes ngram_conv_state_bytes(const Model& model) {
    const auto& a = model.arch;
    if (!a.ngram_embedding || a.ngram_embedding->conv_kernel < 2) return 0;
    const NgramEmbedding& n = *a.ngram_embedding;
    const std::uint64_t columns = checked::mul(n.conv_kernel - 1, n.ngram_size);
    const std::uint64_t streams = checked::mul(a.hyper_connections, a.hidden_size);
    return checked::mul(checked::mul(columns, streams), kF32Bytes);
}

Bytes recurrent_state_bytes(const Model& model) {
    Bytes total = ngram_conv_state_bytes(model);
    for (const auto& g : model.arch.layer_groups) {
        total = checked::add(total, checked::mul(layer_recurrent_state_bytes(g), g.count));
    }
    return total;
}

}  // namespace canitrun
