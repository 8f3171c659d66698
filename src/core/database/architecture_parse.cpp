// A model's architecture as the database states it: layer groups by kind, their order, and the
// checks that their counts and dimensions add up.

#include "architecture_parse.hpp"

#include "canitrun/layer_kinds.hpp"
#include "canitrun/limits.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/parse.hpp"

namespace canitrun::detail {
namespace {

using nlohmann::json;

LayerKind parse_layer_kind(const Fields& f) {
    const std::string kind = f.text("kind");
    if (const auto k = layer_kind_of_name(kind)) return *k;
    f.error("unknown layer kind '" + kind + "' (expected one of " + layer_kind_names() + ")");
}

// A full-attention group's own fields: K = V, an indexer (MiniMax-M3, qwen4exp) and a
// Mamba-2 mixer beside the attention (Falcon-H1).
void parse_full_group(const Fields& f, LayerGroup& g) {
    g.k_eq_v = f.flag_or("k_eq_v", false);
    // MiniMax Sparse Attention's indexer (MiniMax-M3)
    g.index_head_dim = f.count_or("index_head_dim", 0, kMaxDim);
    g.index_heads = f.count_or("index_heads", 0, kMaxDim);
    g.index_top_k = f.count_or("index_topk", 0, kMaxContext);
    // Qwen Sparse Attention (qwen4exp): the indexer's blocks of this many tokens
    g.compress_ratio = f.count_or("compress_ratio", 0, kMaxContext);
    if (g.compress_ratio > 0 && g.index_head_dim == 0) {
        f.error("compress_ratio on a full group needs its indexer (index_head_dim)");
    }
    if (f.has("parallel_ssm")) {
        // Falcon-H1: a Mamba-2 mixer beside the attention in every layer of the group
        const Fields s = f.child("parallel_ssm");
        g.conv_kernel = s.count("conv_kernel", 1, 64);
        g.inner_size = s.count("inner_size", 1, kMaxDim);
        g.state_size = s.count("state_size", 1, kMaxDim);
        g.groups = s.count("groups", 1, kMaxDim);
        g.ssm_heads = s.count("heads", 1, kMaxDim);
        if (s.count("head_dim", 1, kMaxDim) * g.ssm_heads != g.inner_size) {
            s.error("inner_size must be heads x head_dim");
        }
        g.ssm_rms_norm = s.flag_or("rms_norm", false);  // config.json's mamba_rms_norm
    }
}

LayerGroup parse_layer_group(const Fields& f) {
    LayerGroup g;
    g.kind = parse_layer_kind(f);
    g.count = f.count("count", 1, kMaxLayers);
    if (g.kind == LayerKind::full || g.kind == LayerKind::sliding || g.kind == LayerKind::mla) {
        g.heads = f.count_or("heads", 0, kMaxDim);  // on an ssm group, "heads" are Mamba's
    }
    g.kv_heads = f.count_or("kv_heads", 0, kMaxDim);
    g.head_dim = f.count_or("head_dim", 0, kMaxDim);
    g.v_head_dim = f.count_or("v_head_dim", 0, kMaxDim);
    switch (g.kind) {
        case LayerKind::full:
            parse_full_group(f, g);
            break;
        case LayerKind::sliding:
            g.window = f.count("window", 1, kMaxContext);
            break;
        case LayerKind::linear:
            g.conv_kernel = f.count("conv_kernel", 1, 64);
            g.key_heads = f.count("key_heads", 1, kMaxDim);
            g.value_heads = f.count("value_heads", 1, kMaxDim);
            g.key_head_dim = f.count("key_head_dim", 1, kMaxDim);
            g.value_head_dim = f.count("value_head_dim", 1, kMaxDim);
            break;
        case LayerKind::ssm:
            g.conv_kernel = f.count("conv_kernel", 1, 64);
            g.inner_size = f.count("inner_size", 1, kMaxDim);
            g.state_size = f.count("state_size", 1, kMaxDim);
            g.groups = f.count_or("groups", 0, kMaxDim);
            g.ssm_heads = f.count_or("heads", 0, kMaxDim);
            break;
        case LayerKind::mla:
            g.kv_lora_rank = f.count("kv_lora_rank", 1, kMaxDim);
            g.q_lora_rank = f.count_or("q_lora_rank", 0, kMaxDim);
            g.qk_nope_head_dim = f.count("qk_nope_head_dim", 1, kMaxDim);
            g.qk_rope_head_dim = f.count("qk_rope_head_dim", 1, kMaxDim);
            g.v_head_dim = f.count("v_head_dim", 1, kMaxDim);
            g.index_head_dim = f.count_or("index_head_dim", 0, kMaxDim);
            g.index_heads = f.count_or("index_heads", 0, kMaxDim);
            g.index_top_k = f.count_or("index_topk", 0, kMaxContext);
            // dots3note's sliding MLA layers (llama_kv_cache_dsa_iswa's SWA cache)
            g.window = f.count_or("window", 0, kMaxContext);
            break;
        case LayerKind::conv:
            g.conv_kernel = f.count("conv_kernel", 1, 64);
            break;
        case LayerKind::ffn:
            break;
        case LayerKind::compressed:
            // DeepSeek V4: the raw window, the compression, q's LoRA and the ratio-4 indexer
            g.window = f.count("window", 1, kMaxContext);
            g.compress_ratio = f.count_or("compress_ratio", 0, kMaxContext);
            if (g.compress_ratio != 0 && g.compress_ratio != 4 && g.compress_ratio != 128) {
                f.error("compress_ratio must be 0, 4 or 128 (llama.cpp's deepseek4 runs no other)");
            }
            if (g.head_dim == 0) f.error("a compressed group states its head_dim");
            g.q_lora_rank = f.count("q_lora_rank", 1, kMaxDim);
            g.index_head_dim = f.count_or("index_head_dim", 0, kMaxDim);
            g.index_heads = f.count_or("index_heads", 0, kMaxDim);
            g.index_top_k = f.count_or("index_topk", 0, kMaxContext);
            break;
    }
    return g;
}

// The kind a layer_order character stands for: a letter's, or a digit's group's.
std::optional<LayerKind> order_letter_kind(const Architecture& a, char c) {
    if (c >= '0' && c <= '9') {
        const auto g = static_cast<std::size_t>(c - '0');
        if (g < a.layer_groups.size()) return a.layer_groups[g].kind;
        return std::nullopt;
    }
    return layer_kind_of_letter(c);
}

// layer_order names every layer's kind, as many of each as its groups hold (two groups of one
// kind fill in turn, the first group first).
void check_layer_order(const Fields& f, const Architecture& a) {
    if (a.layer_order.empty()) {
        // FFN-only blocks sit where the config's pattern puts them, not at a period
        if (ffn_layer_count(a) != a.layers) f.error("FFN-only layers need a layer_order");
        return;
    }
    if (a.layer_order.size() != a.layers) {
        f.error("layer_order has " + std::to_string(a.layer_order.size()) +
                " letters, but layers = " + std::to_string(a.layers));
    }
    for (const char c : a.layer_order) {
        const bool digit = c >= '0' && c <= '9';
        if (digit && static_cast<std::size_t>(c - '0') >= a.layer_groups.size()) {
            f.error(std::string("layer_order has '") + c + "', which names no layer group");
        } else if (!digit && !layer_kind_of_letter(c)) {
            f.error(std::string("layer_order has '") + c + "', which names no layer kind");
        }
    }
    for (const auto& g : a.layer_groups) {
        std::uint64_t n = 0;
        for (const char c : a.layer_order) n += order_letter_kind(a, c) == g.kind ? 1U : 0U;
        std::uint64_t in_kind = 0;
        for (const auto& other : a.layer_groups) in_kind += other.kind == g.kind ? other.count : 0;
        if (n != in_kind) {
            f.error("layer_order gives " + std::to_string(n) + " " + layer_kind_name(g.kind) +
                    " layers, but its groups of that kind have " + std::to_string(in_kind));
        }
    }
    if (a.layer_order.size() == a.layers && stated_group_order(a).empty()) {
        f.error("layer_order names a group more often than it has layers");
    }
}

// qwen4exp's PLE (qwen4exp.cpp:64-142): one layer, and that a linear one, whose recurrent
// row also keeps the convolution's history; its heads must fill the hidden width, which
// ple_key reads (n_embd in, hc x n_embd out).
NgramEmbedding parse_ngram_embedding(const Fields& parent, const Architecture& a) {
    const Fields f = parent.child("ngram_embedding");
    NgramEmbedding n;
    n.layer = f.count_or("layer", 0, a.layers - 1);
    n.ngram_size = f.count("ngram_size", 2, 8);
    n.heads_per_ngram = f.count("heads_per_ngram", 1, 64);
    n.width = f.count("width", 1, kMaxDim);
    n.rows = f.count("rows", 1, std::uint64_t{1} << 31);
    n.conv_kernel = f.count("conv_kernel", 1, 64);
    if ((n.ngram_size - 1) * n.heads_per_ngram * n.width != a.hidden_size) {
        f.error("(ngram_size - 1) x heads_per_ngram x width must be hidden_size");
    }
    if (a.hyper_connections < 2) f.error("an n-gram embedding needs hyper_connections");
    return n;
}

Attention parse_attention(const Fields& att) {
    Attention at;
    at.heads = att.count("heads", 1, kMaxDim);
    at.kv_heads = att.count("kv_heads", 1, at.heads);
    at.head_dim = att.count("head_dim", 1, kMaxDim);
    at.v_head_dim = att.count_or("v_head_dim", 0, kMaxDim);
    at.output_gate = att.flag_or("output_gate", false);
    at.head_dim_explicit = att.flag_or("head_dim_explicit", false);
    at.qk_norm = att.flag_or("qk_norm", true);
    at.rope_scaling = att.text_or("rope_scaling", "");
    if (!at.rope_scaling.empty() && at.rope_scaling != "llama3") {
        att.error("rope_scaling: only \"llama3\" is recorded (the one that writes rope_freqs)");
    }
    return at;
}

}  // namespace

Architecture parse_architecture(const Fields& f) {
    Architecture a;
    a.hidden_size = f.count("hidden_size", 1, kMaxDim);
    a.vocab_size = f.count("vocab_size", 1, kMaxVocab);
    a.tied_embeddings = f.flag_or("tied_embeddings", false);
    a.layers = f.count("layers", 1, kMaxLayers);
    a.attention = parse_attention(f.child("attention"));
    if (f.has("ffn")) {
        const Fields ffn = f.child("ffn");
        a.intermediate_size = ffn.count_or("intermediate_size", 0, kMaxDim);
        a.gated_ffn = ffn.flag_or("gated", true);
        a.shared_kv_intermediate_size = ffn.count_or("shared_kv_intermediate_size", 0, kMaxDim);
    }
    if (f.has("moe")) {
        const Fields m = f.child("moe");
        MoE moe;
        moe.experts = m.count("experts", 1, kMaxExperts);
        moe.experts_per_token = m.count("experts_per_token", 1, moe.experts);
        moe.shared_experts = m.count_or("shared_experts", 0, 1000);
        moe.expert_intermediate_size = m.count("expert_intermediate_size", 1, kMaxDim);
        moe.shared_expert_intermediate_size =
            m.count_or("shared_expert_intermediate_size", 0, kMaxDim);
        moe.moe_layers = m.count("moe_layers", 1, a.layers);
        moe.gated = m.flag_or("gated", true);
        moe.latent_size = m.count_or("latent_size", 0, a.hidden_size);
        a.moe = moe;
    }
    if (!a.moe && a.intermediate_size == 0) f.error("a dense model needs ffn.intermediate_size");
    const json& groups = f.at("layer_groups");
    if (!groups.is_array() || groups.empty()) f.error("layer_groups must be a non-empty array");
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        LayerGroup g = parse_layer_group(
            Fields(groups[i], f.where() + ".layer_groups[" + std::to_string(i) + "]"));
        sum += g.count;
        if (g.kind == LayerKind::conv) g.inner_size = a.hidden_size;  // a channel per dimension
        a.layer_groups.push_back(g);
    }
    if (sum != a.layers) {
        f.error("layer_groups count " + std::to_string(sum) +
                " layers, but layers = " + std::to_string(a.layers));
    }
    // The FFNs live in the FFN-only blocks where a model has them (Nemotron-H).
    const std::uint64_t ffn_layers = ffn_layer_count(a);
    if (a.moe && a.moe->moe_layers > ffn_layers) {
        f.error("moe_layers is " + std::to_string(a.moe->moe_layers) + ", but only " +
                std::to_string(ffn_layers) + " layers hold an FFN");
    }
    if (a.moe && a.moe->moe_layers < ffn_layers && a.intermediate_size == 0) {
        f.error("dense layers beside the MoE layers need ffn.intermediate_size");
    }
    a.layer_order = f.text_or("layer_order", "");
    check_layer_order(f, a);
    a.shared_kv_layers = f.count_or("shared_kv_layers", 0, a.layers - 1);
    a.mtp_layers = f.count_or("mtp_layers", 0, 8);
    a.per_layer_input_size = f.count_or("per_layer_input_size", 0, kMaxDim);
    a.attention_residual_block = f.count_or("attention_residual_block", 0, a.layers);
    // DeepSeek V4 (config.json's o_groups, o_lora_rank, hc_mult, num_hash_layers)
    a.output_groups = f.count_or("output_groups", 0, kMaxDim);
    a.output_lora_rank = f.count_or("output_lora_rank", 0, kMaxDim);
    a.hyper_connections = f.count_or("hyper_connections", 0, kMaxHyperConnections);
    a.hash_layers = f.count_or("hash_layers", 0, kMaxLayers);
    // Qwen3.8-Flash-Next (config.json's hc_lowrank, and its PLE n-gram table)
    a.hyper_connection_rank = f.count_or("hyper_connection_rank", 0, kMaxDim);
    if (a.hyper_connection_rank > 0 && a.hyper_connections < 2) {
        f.error("hyper_connection_rank needs hyper_connections of at least 2");
    }
    if (f.has("ngram_embedding")) a.ngram_embedding = parse_ngram_embedding(f, a);
    a.pattern = f.text_or("pattern", "");
    a.config_note = f.text_or("config_note", "");
    a.linear_name = f.text_or("linear_name", "");
    a.full_name = f.text_or("full_name", "");
    return a;
}

}  // namespace canitrun::detail
