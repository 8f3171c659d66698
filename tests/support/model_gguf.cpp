#include "support/model_gguf.hpp"

#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun::test {
namespace {

const LayerGroup* group(const Model& m, LayerKind k) {
    for (const auto& g : m.arch.layer_groups) {
        if (g.kind == k) return &g;
    }
    return nullptr;
}

std::uint32_t u32(std::uint64_t v) {
    return static_cast<std::uint32_t>(v);
}

// The keys every file has: its name and type, the model's sizes, norm and rope constants.
void write_general_keys(GgufWriter& w, const Model& m, const std::string& arch, std::uint32_t ftype,
                        bool mtp) {
    const auto& a = m.arch;
    const std::string p = arch + ".";
    w.str("general.architecture", arch);
    w.str("general.name", "synthetic");
    w.u32("general.file_type", ftype);
    w.u32("general.quantization_version", 2);
    w.u32(p + "vocab_size", u32(a.vocab_size));
    w.u32(p + "context_length", u32(m.context_native));
    w.u32(p + "embedding_length", u32(a.hidden_size));
    w.u32(p + "block_count", u32(a.layers + (mtp ? a.mtp_layers : 0)));
    if (mtp) w.u32(p + "nextn_predict_layers", u32(a.mtp_layers));
    if (arch == "dots3note") {
        // conversion/dots3.py: each layer's heads, 64 on the sliding MLA layers
        std::vector<std::uint32_t> heads;
        for (const auto g : layer_group_order(m))
            heads.push_back(u32(mla_heads(a, a.layer_groups[g])));
        w.u32_array(p + "attention.head_count", heads);
    } else if (arch == "step35") {
        // conversion/step3.py: the query heads of every layer (attention_other_setting's 96 on
        // the sliding ones)
        std::vector<std::uint32_t> heads;
        for (const LayerKind k : layer_kinds(m)) {
            const LayerGroup* g = group(m, k);
            heads.push_back(u32(g && g->heads ? g->heads : a.attention.heads));
        }
        w.u32_array(p + "attention.head_count", heads);
    } else {
        w.u32(p + "attention.head_count", u32(a.attention.heads));
    }
    w.f32(p + (arch == "command-r" || arch == "cohere2" ? "attention.layer_norm_epsilon"
                                                        : "attention.layer_norm_rms_epsilon"),
          1e-6f);
    if (arch == "nemotron_h" || arch == "nemotron_h_moe") {
        // nemotron-h.cpp reads both: RMS for the blocks, plain for the MTP head's final norm
        w.f32(p + "attention.layer_norm_epsilon", 1e-5f);
    }
    w.f32(p + "rope.freq_base", 10000.0f);
}

// DeepSeek-2's MLA keys: the latent's ranks and dims, and its dense and shared-expert layers.
// The architectures whose attention keys are MLA's (one latent KV head, key_length_mla ...) and
// whose shared experts take the routed experts' width (no expert_shared_feed_forward_length).
bool mla_arch(const std::string& arch) {
    return arch == "deepseek2" || arch == "deepseek32" || arch == "glm-dsa" ||
           arch == "kimi-linear" || arch == "kimi-k3" || arch == "hy_v4" || arch == "mistral4" ||
           arch == "dots3note";
}

void write_mla_keys(GgufWriter& w, const Model& m, const std::string& arch, std::uint64_t v_dim) {
    const auto& a = m.arch;
    const std::string p = arch + ".";
    const LayerGroup& g = *group(m, LayerKind::mla);
    if (arch == "kimi-linear" || arch == "kimi-k3") {
        // conversion/kimi_linear.py, kimi_k3.py: one KV head on the MLA layers, none on the KDA
        std::vector<std::uint32_t> kv;
        for (const LayerKind k : layer_kinds(m)) kv.push_back(k == LayerKind::mla ? 1 : 0);
        w.u32_array(p + "attention.head_count_kv", kv);
    } else {
        w.u32(p + "attention.head_count_kv", 1);
    }
    w.u32(p + "attention.key_length", u32(g.kv_lora_rank + g.qk_rope_head_dim));
    w.u32(p + "attention.value_length", u32(g.kv_lora_rank));
    w.u32(p + "attention.key_length_mla", u32(g.qk_nope_head_dim + g.qk_rope_head_dim));
    w.u32(p + "attention.value_length_mla", u32(v_dim));
    w.u32(p + "attention.kv_lora_rank", u32(g.kv_lora_rank));
    if (g.q_lora_rank) w.u32(p + "attention.q_lora_rank", u32(g.q_lora_rank));
    w.u32(p + "rope.dimension_count", u32(g.qk_rope_head_dim));
    if (g.index_head_dim) {  // deepseek32.cpp requires all three
        w.u32(p + "attention.indexer.head_count", u32(g.index_heads));
        w.u32(p + "attention.indexer.key_length", u32(g.index_head_dim));
        w.u32(p + "attention.indexer.top_k", u32(g.index_top_k));
    }
    w.u32(p + "leading_dense_block_count", u32(a.layers - a.moe->moe_layers));
    w.u32(p + "expert_shared_count", u32(a.moe->shared_experts));
    w.f32(p + "expert_weights_scale", 1.0f);
    // softmax (1) for DeepSeek V2 and Mistral Small 4 (Mistral4MoE's router_logits.softmax),
    // sigmoid (2) for the rest
    w.u32(p + "expert_gating_func", m.family == "deepseek-v2" || arch == "mistral4" ? 1 : 2);
}

// Every other architecture's KV heads (per layer for granite-hybrid), head dims and rope dims.
void write_attention_keys(GgufWriter& w, const Model& m, const std::string& arch,
                          std::uint64_t v_dim, bool mtp) {
    const auto& a = m.arch;
    const std::string p = arch + ".";
    if (arch == "mimo2" || arch == "gemma4") {
        // conversion/mimo.py, gemma.py: the full layers' KV heads and the sliding layers' own
        std::vector<std::uint32_t> kv;
        for (const LayerKind k : layer_kinds(m))
            kv.push_back(u32(attention_dims(m, *group(m, k)).kv_heads));
        w.u32_array(p + "attention.head_count_kv", kv);
    } else if (arch == "nemotron_h" || arch == "nemotron_h_moe" || arch == "lfm2" ||
               arch == "lfm2moe" || arch == "jamba" || arch == "granitehybrid") {
        // conversion/nemotron.py, lfm2.py, jamba.py and granite.py: KV heads on the attention
        // blocks only
        std::vector<std::uint32_t> kv;
        for (const LayerKind k : layer_kinds(m))
            kv.push_back(k == LayerKind::full ? u32(a.attention.kv_heads) : 0);
        // conversion/nemotron.py registers the folded MTP block as an attention layer too
        if (mtp && arch == "nemotron_h_moe") kv.push_back(u32(a.attention.kv_heads));
        w.u32_array(p + "attention.head_count_kv", kv);
    } else {
        w.u32(p + "attention.head_count_kv", u32(a.attention.kv_heads));
    }
    if (arch == "gemma4") {
        // conversion/gemma.py: the global layers' head dim as key_length, the sliding ones' as
        // key_length_swa (gemma4.cpp requires both pairs), and the per-layer inputs' width
        const AttentionDims full = attention_dims(m, *group(m, LayerKind::full));
        const AttentionDims swa = attention_dims(m, *group(m, LayerKind::sliding));
        w.u32(p + "attention.key_length", u32(full.k_dim));
        w.u32(p + "attention.value_length", u32(full.v_dim));
        w.u32(p + "attention.key_length_swa", u32(swa.k_dim));
        w.u32(p + "attention.value_length_swa", u32(swa.v_dim));
        w.u32(p + "rope.dimension_count", u32(full.k_dim));
        w.u32(p + "rope.dimension_count_swa", u32(swa.k_dim));
        w.u32(p + "embedding_length_per_layer_input", u32(a.per_layer_input_size));
        w.u32(p + "attention.shared_kv_layers", u32(a.shared_kv_layers));
        return;
    }
    w.u32(p + "attention.key_length", u32(a.attention.head_dim));
    w.u32(p + "attention.value_length", u32(v_dim));
    if (arch == "deepseek4") {
        // conversion/deepseek.py: qk_rope_head_dim, 64 in both V4 configs
        w.u32(p + "rope.dimension_count", 64);
        return;
    }
    const bool partial = arch == "qwen35" || arch == "qwen35moe" || arch == "qwen3next";
    // conversion/phi.py: Phi-4-mini's partial_rotary_factor 0.75
    const std::uint64_t rot = partial                   ? a.attention.head_dim / 4
                              : m.family == "phi4-mini" ? a.attention.head_dim * 3 / 4
                                                        : a.attention.head_dim;
    w.u32(p + "rope.dimension_count", u32(rot));
}

void write_ffn_keys(GgufWriter& w, const Model& m, const std::string& arch, bool mtp) {
    const auto& a = m.arch;
    const std::string p = arch + ".";
    if (arch == "nemotron_h" || arch == "nemotron_h_moe") {
        // conversion/nemotron.py: the FFN (or expert) width on the FFN blocks, 0 elsewhere
        const std::uint64_t ff = m.is_moe() ? a.moe->expert_intermediate_size : a.intermediate_size;
        std::vector<std::uint32_t> widths;
        for (const LayerKind k : layer_kinds(m))
            widths.push_back(k == LayerKind::ffn ? u32(ff) : 0);
        // ... and as an FFN (MoE) layer: the MTP block has both
        if (mtp && arch == "nemotron_h_moe") widths.push_back(u32(ff));
        w.u32_array(p + "feed_forward_length", widths);
    } else if ((arch == "granitehybrid" || arch == "llama" || arch == "minimax-m2" ||
                arch == "phimoe") &&
               m.is_moe()) {
        // llama.cpp, granite-hybrid.cpp, minimax-m2.cpp and phimoe.cpp size their experts with
        // feed_forward_length
        w.u32(p + "feed_forward_length", u32(a.moe->expert_intermediate_size));
    } else if (arch == "gemma4" && a.shared_kv_intermediate_size) {
        // conversion/gemma.py (use_double_wide_mlp): the KV-sharing layers' wider FFN
        std::vector<std::uint32_t> widths(a.layers, u32(a.intermediate_size));
        for (std::uint64_t i = a.layers - a.shared_kv_layers; i < a.layers; ++i)
            widths[i] = u32(a.shared_kv_intermediate_size);
        w.u32_array(p + "feed_forward_length", widths);
    } else if (arch == "gemma4" && a.intermediate_size == 0 && m.is_moe()) {
        // the 26B-A4B's dense MLP beside the experts: config.json's intermediate_size
        w.u32(p + "feed_forward_length", u32(a.moe->shared_expert_intermediate_size));
    } else if (a.intermediate_size) {
        w.u32(p + "feed_forward_length", u32(a.intermediate_size));
    }
    if (m.is_moe()) {
        w.u32(p + "expert_count", u32(a.moe->experts));
        w.u32(p + "expert_used_count", u32(a.moe->experts_per_token));
        w.u32(p + "expert_feed_forward_length", u32(a.moe->expert_intermediate_size));
        // conversion/base.py writes config.json's scoring_func (sigmoid for MiniMax-M2)
        if (arch == "minimax-m2") w.u32(p + "expert_gating_func", 2);
        if (a.moe->shared_expert_intermediate_size && !mla_arch(arch)) {
            w.u32(p + "expert_shared_feed_forward_length",
                  u32(a.moe->shared_expert_intermediate_size));
        }
    }
}

// conversion/deepseek.py's DeepseekV4Model: the window, q's LoRA, the grouped output, the
// hyper-connections, the hash-routed layers, sqrt-softplus scoring (4), every layer's compress
// ratio and the ratio-4 indexer; deepseek4.cpp requires each.
void write_deepseek4_keys(GgufWriter& w, const Model& m) {
    const auto& a = m.arch;
    const std::string p = "deepseek4.";
    std::vector<std::uint32_t> ratios;
    const LayerGroup* indexed = nullptr;
    for (const auto g : layer_group_order(m)) {
        const LayerGroup& lg = a.layer_groups[g];
        ratios.push_back(u32(lg.compress_ratio));
        if (lg.index_head_dim > 0) indexed = &lg;
    }
    const LayerGroup& first = a.layer_groups.front();
    w.u32(p + "attention.q_lora_rank", u32(first.q_lora_rank));
    w.u32(p + "attention.sliding_window", u32(first.window));
    w.u32_array(p + "attention.compress_ratios", ratios);
    w.f32(p + "attention.compress_rope_freq_base", 160000.0f);
    w.u32(p + "attention.output_group_count", u32(a.output_groups));
    w.u32(p + "attention.output_lora_rank", u32(a.output_lora_rank));
    w.u32(p + "hyper_connection.count", u32(a.hyper_connections));
    w.u32(p + "hyper_connection.sinkhorn_iterations", 20);
    w.f32(p + "hyper_connection.epsilon", 1e-6f);
    w.u32(p + "hash_layer_count", u32(a.hash_layers));
    w.u32(p + "expert_shared_count", u32(a.moe->shared_experts));
    w.f32(p + "expert_weights_scale", 1.5f);
    w.boolean(p + "expert_weights_norm", true);
    w.u32(p + "expert_gating_func", 4);
    w.f32(p + "swiglu_clamp_exp", 10.0f);
    if (indexed != nullptr) {
        w.u32(p + "attention.indexer.head_count", u32(indexed->index_heads));
        w.u32(p + "attention.indexer.key_length", u32(indexed->index_head_dim));
        w.u32(p + "attention.indexer.top_k", u32(indexed->index_top_k));
    }
}

// conversion/kimi_k3.py: the latent width, the residual blocks and SiTU's two caps (config.json's
// activation_situ_beta 4, activation_situ_linear_beta 25); kimi-k3.cpp requires the last three.
void write_kimi_k3_keys(GgufWriter& w, const Model& m) {
    const auto& a = m.arch;
    const std::string p = "kimi-k3.";
    if (a.moe && a.moe->latent_size) w.u32(p + "expert_latent_length", u32(a.moe->latent_size));
    w.u32(p + "attn_res.block_size", u32(a.attention_residual_block));
    w.f32(p + "activation.situ_beta", 4.0f);
    w.f32(p + "activation.situ_linear_beta", 25.0f);
}

// conversion/qwen4exp.py: the hyper-connections, the QSA indexer (attention.compress_ratios, 0
// on the linear layers) and the n-gram table's keys; qwen4exp.cpp:26-125 requires each. The
// hash's constants come from the checkpoint (ple_embedding.*); the stand-ins here split the
// table's rows evenly over its heads, which fixes nothing a buffer's size reads.
void write_qwen4exp_keys(GgufWriter& w, const Model& m) {
    const auto& a = m.arch;
    const std::string p = "qwen4exp.";
    w.u32(p + "hyper_connection.count", u32(a.hyper_connections));
    w.u32(p + "hyper_connection.low_rank", u32(a.hyper_connection_rank));
    const LayerGroup* full = group(m, LayerKind::full);
    if (full != nullptr && full->index_head_dim > 0) {
        w.u32(p + "attention.indexer.head_count", u32(full->index_heads));
        w.u32(p + "attention.indexer.key_length", u32(full->index_head_dim));
        w.u32(p + "attention.indexer.top_k", u32(full->index_top_k));
        std::vector<std::uint32_t> ratios;
        for (const LayerKind k : layer_kinds(m)) {
            ratios.push_back(k == LayerKind::full ? u32(full->compress_ratio) : 0);
        }
        w.u32_array(p + "attention.compress_ratios", ratios);
    }
    if (!a.ngram_embedding) return;
    const NgramEmbedding& n = *a.ngram_embedding;
    const std::uint64_t heads = (n.ngram_size - 1) * n.heads_per_ngram;
    w.u32_array(p + "ple.layers", {u32(n.layer)});
    w.u32(p + "ple.ngram_size", u32(n.ngram_size));
    w.u32(p + "ple.heads_per_ngram", u32(n.heads_per_ngram));
    w.u32(p + "ple.conv_kernel", u32(n.conv_kernel));
    w.u32(p + "ple.eos_token_id", 1);
    w.u32(p + "embedding_length_per_layer_input", u32(n.width));
    std::vector<std::uint64_t> multipliers, offsets, sizes;
    for (std::uint64_t i = 0; i < n.ngram_size; ++i) multipliers.push_back(2 * i + 1);
    for (std::uint64_t h = 0; h < heads; ++h) {
        offsets.push_back(h * (n.rows / heads));
        sizes.push_back(n.rows / heads);
    }
    w.u64_array(p + "ple.layer_multipliers", multipliers);
    w.u64_array(p + "ple.head_offsets", offsets);
    w.u64_array(p + "ple.head_vocab_sizes", sizes);
}

// The keys of the model's linear-attention, SSM and sliding-window layers, where it has them.
void write_layer_kind_keys(GgufWriter& w, const Model& m, const std::string& arch) {
    const auto& a = m.arch;
    const std::string p = arch + ".";
    if (const LayerGroup* g = group(m, LayerKind::linear);
        g && (arch == "kimi-linear" || arch == "kimi-k3")) {
        w.u32(p + "ssm.conv_kernel", u32(g->conv_kernel));
        w.u32(p + "kda.head_dim", u32(g->key_head_dim));
    } else if (g) {
        const LayerGroup* full = group(m, LayerKind::full);
        w.u32(p + "ssm.conv_kernel", u32(g->conv_kernel));
        w.u32(p + "ssm.state_size", u32(g->key_head_dim));
        w.u32(p + "ssm.group_count", u32(g->key_heads));
        w.u32(p + "ssm.time_step_rank", u32(g->value_heads));
        w.u32(p + "ssm.inner_size", u32(g->value_heads * g->value_head_dim));
        w.u32(p + "full_attention_interval", u32(a.layers / (full ? full->count : 1)));
        if (arch != "qwen3next") w.i32_array(p + "rope.dimension_sections", {11, 11, 10, 0});
    }
    if (arch == "ernie4_5-moe") {  // conversion/ernie.py; ernie4-5-moe.cpp requires the step
        w.u32(p + "interleave_moe_layer_step", 1);
        w.u32(p + "leading_dense_block_count", u32(a.layers - a.moe->moe_layers));
    }
    if (arch == "llama4") {  // conversion/llama.py: config.json's interleave_moe_layer_step
        w.u32(p + "interleave_moe_layer_step", u32(a.layers / a.moe->moe_layers));
    }
    if (arch == "minimax-m3") {
        // conversion/minimax.py: the dense lead (moe_layer_freq's leading zeros), one shared
        // expert, sigmoid routing, and sparse_attention_config's indexer (top-k in blocks)
        w.u32(p + "leading_dense_block_count", u32(a.layers - a.moe->moe_layers));
        w.u32(p + "expert_shared_count", u32(a.moe->shared_experts));
        w.u32(p + "expert_gating_func", 2);
        for (const auto& g : a.layer_groups) {
            if (g.index_head_dim == 0) continue;
            w.u32(p + "attention.indexer.head_count", u32(g.index_heads));
            w.u32(p + "attention.indexer.key_length", u32(g.index_head_dim));
            w.u32(p + "attention.indexer.top_k", u32(g.index_top_k / 128));
            w.u32(p + "attention.indexer.block_size", 128);
            w.u32(p + "attention.indexer.local_blocks", 1);
            break;
        }
    }
    if (arch == "deepseek4") write_deepseek4_keys(w, m);
    if (arch == "glm4moe") {  // conversion/glm.py: the dense lead and the shared expert count
        w.u32(p + "leading_dense_block_count", u32(a.layers - a.moe->moe_layers));
        w.u32(p + "expert_shared_count", u32(a.moe->shared_experts));
    }
    if (const LayerGroup* g = group(m, LayerKind::conv)) {
        w.u32(p + "shortconv.l_cache", u32(g->conv_kernel));
        if (m.is_moe()) {  // conversion/lfm2.py: num_dense_layers, a sigmoid gate
            w.u32(p + "leading_dense_block_count", u32(a.layers - a.moe->moe_layers));
            w.u32(p + "expert_gating_func", 2);
        }
    }
    const LayerGroup* ssm = group(m, LayerKind::ssm);
    if (const LayerGroup* full = group(m, LayerKind::full); full && has_parallel_ssm(*full)) {
        ssm = full;  // Falcon-H1: the mixer beside the attention (conversion/falcon_h1.py)
    }
    if (const LayerGroup* g = ssm) {
        w.u32(p + "ssm.conv_kernel", u32(g->conv_kernel));
        w.u32(p + "ssm.inner_size", u32(g->inner_size));
        w.u32(p + "ssm.state_size", u32(g->state_size));
        // Mamba-2: the heads; Mamba-1 (jamba): the dt rank, conversion/jamba.py's ceil(h / 16)
        w.u32(p + "ssm.time_step_rank",
              u32(arch == "jamba" ? (a.hidden_size + 15) / 16 : g->ssm_heads));
        w.u32(p + "ssm.group_count", u32(g->groups));
    }
    if (const LayerGroup* g = group(m, LayerKind::sliding)) {
        const LayerGroup* full = group(m, LayerKind::full);
        w.u32(p + "attention.sliding_window", u32(g->window));
        if (arch == "mimo2" || arch == "step35" || arch == "gemma4" || arch == "muse-glimmer" ||
            arch == "spark2_5") {
            // conversion/mimo.py, step3.py, gemma.py, muse_glimmer.py, spark2_5.py: one flag per
            // layer (1: sliding)
            std::vector<std::uint32_t> swa;
            for (const LayerKind k : layer_kinds(m)) swa.push_back(k == LayerKind::sliding ? 1 : 0);
            w.u32_array(p + "attention.sliding_window_pattern", swa);
        } else if (full && full->count) {
            w.u32(p + "attention.sliding_window_pattern", u32(a.layers / full->count));
        }
    }
}

// conversion/hy_v4.py: the hyper-connections (hc_mult, hc_eps, hc_magnitude: 4, 1e-6, 2.0 in
// Hy4-preview's config) and indexer_types as one bool per layer (true: "full"), which hy-v4.cpp
// reads rather than inferring it from the tensors.
void write_hy_v4_keys(GgufWriter& w, const Model& m) {
    const std::string p = "hy_v4.";
    w.u32(p + "hyper_connection.count", u32(m.arch.hyper_connections));
    w.f32(p + "hyper_connection.epsilon", 1e-6f);
    w.f32(p + "hyper_connection.magnitude", 2.0f);
    std::vector<bool> full;
    const auto order = layer_group_order(m);
    for (const std::size_t g : order) full.push_back(m.arch.layer_groups[g].index_head_dim > 0);
    w.bool_array(p + "attention.indexer.types", full);
}

// conversion/dots3.py: the sliding MLA layers' window, pattern and shapes, their rope base
// (swa_rope_theta 50000), and the indexer's layers as one bool each (true: a full layer);
// dots3note.cpp requires each.
void write_dots3note_keys(GgufWriter& w, const Model& m) {
    const std::string p = "dots3note.";
    const auto& groups = m.arch.layer_groups;
    const auto order = layer_group_order(m);
    LayerGroup swa;
    std::vector<bool> sliding, indexed;
    for (const std::size_t g : order) {
        if (keeps_window(groups[g])) swa = groups[g];
        sliding.push_back(keeps_window(groups[g]));
        indexed.push_back(groups[g].index_head_dim > 0);
    }
    w.u32(p + "attention.sliding_window", u32(swa.window));
    w.bool_array(p + "attention.sliding_window_pattern", sliding);
    w.u32(p + "attention.kv_lora_rank_swa", u32(swa.kv_lora_rank));
    w.u32(p + "attention.key_length_swa", u32(swa.kv_lora_rank + swa.qk_rope_head_dim));
    w.u32(p + "attention.value_length_swa", u32(swa.kv_lora_rank));
    w.u32(p + "attention.key_length_mla_swa", u32(swa.qk_nope_head_dim + swa.qk_rope_head_dim));
    w.u32(p + "attention.value_length_mla_swa", u32(swa.v_head_dim));
    w.f32(p + "rope.freq_base_swa", 50000.0f);
    w.bool_array(p + "attention.indexer.types", indexed);
    w.boolean(p + "expert_weights_norm", true);
}

// The scales and rope sections a few architectures' converters write.
void write_arch_extra_keys(GgufWriter& w, const std::string& arch) {
    const std::string p = arch + ".";
    if (arch == "granite" || arch == "granitehybrid" || arch == "cohere2" || arch == "command-r") {
        w.f32(p + "logit_scale", 1.0f);
    }
    if (arch == "muse-glimmer") {  // conversion/muse_glimmer.py: config.json's output_multiplier
        w.f32(p + "logit_scale", 0.19611613513818404f);
        w.f32(p + "final_logit_softcapping", 20.0f);
    }
    if (arch == "granite" || arch == "granitehybrid") {
        w.f32(p + "residual_scale", 0.22f);
        w.f32(p + "embedding_scale", 12.0f);
        w.f32(p + "attention.scale", 0.0078125f);
    }
    if (arch == "qwen2vl" || arch == "qwen3vl" || arch == "qwen3vlmoe") {
        w.i32_array(p + "rope.dimension_sections", {16, 24, 24, 0});
    }
}

}  // namespace

// A function's static, built on first use (cert-err58-cpp).
const std::map<std::string, std::uint32_t>& ftype_ids() {
    static const std::map<std::string, std::uint32_t> ids = {
        {"FP32", 0},     {"FP16", 1},     {"Q4_0", 2},    {"Q4_1", 3},    {"Q8_0", 7},
        {"Q5_0", 8},     {"Q5_1", 9},     {"Q2_K", 10},   {"Q3_K_S", 11}, {"Q3_K_M", 12},
        {"Q3_K_L", 13},  {"Q4_K_S", 14},  {"Q4_K_M", 15}, {"Q5_K_S", 16}, {"Q5_K_M", 17},
        {"Q6_K", 18},    {"IQ2_XXS", 19}, {"IQ2_XS", 20}, {"Q2_K_S", 21}, {"IQ3_XS", 22},
        {"IQ3_XXS", 23}, {"IQ1_S", 24},   {"IQ4_NL", 25}, {"IQ3_S", 26},  {"IQ3_M", 27},
        {"IQ2_S", 28},   {"IQ2_M", 29},   {"IQ4_XS", 30}, {"IQ1_M", 31},  {"BF16", 32},
        {"TQ1_0", 36},   {"TQ2_0", 37},   {"MXFP4", 38},
    };
    return ids;
}

// Every metadata key, in the order the file has them.
void write_model_metadata(GgufWriter& w, const Model& m, const std::string& arch,
                          std::uint32_t ftype, bool mtp) {
    const auto& a = m.arch;
    write_general_keys(w, m, arch, ftype, mtp);
    const std::uint64_t v_dim =
        a.attention.v_head_dim ? a.attention.v_head_dim : a.attention.head_dim;
    if (mla_arch(arch)) {
        write_mla_keys(w, m, arch, v_dim);
    } else {
        write_attention_keys(w, m, arch, v_dim, mtp);
    }
    write_ffn_keys(w, m, arch, mtp);
    write_layer_kind_keys(w, m, arch);
    if (arch == "kimi-k3") write_kimi_k3_keys(w, m);
    if (arch == "qwen4exp") write_qwen4exp_keys(w, m);
    if (arch == "hy_v4") write_hy_v4_keys(w, m);
    if (arch == "dots3note") write_dots3note_keys(w, m);
    write_arch_extra_keys(w, arch);
    w.str("tokenizer.ggml.model", "no_vocab");
}

Result<GgufWriter> model_gguf(const Model& m, const std::string& quant_id,
                              std::optional<bool> imatrix, bool mtp) {
    if (!ftype_ids().contains(quant_id)) {
        return fail(ErrorKind::bad_input, quant_id + " is not a GGUF file type");
    }
    CANITRUN_TRY_ASSIGN(const auto layout, tensor_layout(m));
    CANITRUN_TRY_ASSIGN(auto tensors, quantize_tensors(layout, quant_id, imatrix));
    if (mtp) {
        if (m.arch.mtp_layers != 1) {
            return fail(ErrorKind::bad_input, m.id + " has no single MTP layer to write");
        }
        Quant q;
        q.id = quant_id;
        CANITRUN_TRY_ASSIGN(const auto block, llamacpp_mtp_block(m, q));
        tensors.insert(tensors.end(), block.begin(), block.end());
    }
    GgufWriter w;
    write_model_metadata(w, m, layout.arch, ftype_ids().at(quant_id), mtp);
    for (const auto& t : tensors) {
        std::vector<std::uint64_t> ne(t.tensor.ne.begin(), t.tensor.ne.begin() + t.tensor.n_dims);
        w.tensor(t.tensor.name.str(), ne, t.type.id);
    }
    return w;
}

}  // namespace canitrun::test
