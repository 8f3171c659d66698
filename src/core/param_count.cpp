#include "canitrun/param_count.hpp"

namespace canitrun {
namespace {

std::uint64_t pick(std::uint64_t value, std::uint64_t fallback) {
    return value ? value : fallback;
}

}  // namespace

std::uint64_t mixer_params(const Model& m, const LayerGroup& g) {
    const std::uint64_t h = m.arch.hidden_size;
    const Attention& a = m.arch.attention;
    switch (g.kind) {
        case LayerKind::full:
        case LayerKind::sliding: {
            const AttentionDims d = attention_dims(m, g);
            // A gated attention (Qwen3-Next, Qwen 3.5) doubles the query projection for its gate.
            const std::uint64_t q_heads = a.output_gate ? 2 * a.heads : a.heads;
            return h * d.k_dim * (q_heads + d.kv_heads) + h * d.v_dim * d.kv_heads +
                   a.heads * d.v_dim * h;
        }
        case LayerKind::linear: {
            const std::uint64_t key_dim = g.key_heads * g.key_head_dim;
            const std::uint64_t value_dim = g.value_heads * g.value_head_dim;
            return h * (2 * key_dim + 2 * value_dim + 2 * g.value_heads) + value_dim * h +
                   g.conv_kernel * (2 * key_dim + value_dim);
        }
        case LayerKind::ssm: {
            const std::uint64_t conv_channels = g.inner_size + 2 * g.groups * g.state_size;
            std::uint64_t p = h * (g.inner_size + conv_channels + g.ssm_heads) + g.inner_size * h +
                              g.conv_kernel * conv_channels;
            if (g.groups == 0) {
                // Mamba-1: x_proj and dt_proj, approximated (see data/SCHEMA.md).
                p += g.inner_size * (2 * g.state_size + g.inner_size / 16) * 2;
            }
            return p;
        }
        case LayerKind::mla: {
            const std::uint64_t qk = g.qk_nope_head_dim + g.qk_rope_head_dim;
            const std::uint64_t q =
                g.q_lora_rank ? h * g.q_lora_rank + g.q_lora_rank * a.heads * qk : h * a.heads * qk;
            const std::uint64_t v_dim = pick(g.v_head_dim, a.v_head_dim);
            return q + h * (g.kv_lora_rank + g.qk_rope_head_dim) +
                   g.kv_lora_rank * a.heads * (g.qk_nope_head_dim + v_dim) + a.heads * v_dim * h;
        }
    }
    return 0;
}

FfnParams ffn_params(const Model& m, bool moe_layer) {
    const Architecture& arch = m.arch;
    const std::uint64_t h = arch.hidden_size;
    if (!moe_layer || !arch.moe) return {(arch.gated_ffn ? 3 : 2) * h * arch.intermediate_size, 0};
    const MoE& moe = *arch.moe;
    const std::uint64_t matrices = moe.gated ? 3 : 2;  // squared-ReLU experts have two
    const std::uint64_t expert = matrices * h * moe.expert_intermediate_size;
    const std::uint64_t shared = matrices * h * moe.shared_expert_intermediate_size;
    const std::uint64_t router = h * moe.experts;
    return {shared + router, moe.experts * expert};
}

ParamCount count_params(const Model& m) {
    const Architecture& arch = m.arch;
    const std::uint64_t h = arch.hidden_size;
    const std::uint64_t input_embedding = arch.vocab_size * h;
    const std::uint64_t embeddings = input_embedding * (arch.tied_embeddings ? 1 : 2);

    std::uint64_t mixers = 0;
    for (const auto& g : arch.layer_groups) mixers += g.count * mixer_params(m, g);

    const std::uint64_t dense_ffn = ffn_params(m, false).always;
    std::uint64_t ffn_total = 0, ffn_active = 0;
    if (arch.moe) {
        const MoE& moe = *arch.moe;
        const std::uint64_t dense_layers = arch.layers - moe.moe_layers;
        const FfnParams f = ffn_params(m, true);
        const std::uint64_t active_routed = f.routed / moe.experts * moe.experts_per_token;
        ffn_total = dense_layers * dense_ffn + moe.moe_layers * (f.always + f.routed);
        ffn_active = dense_layers * dense_ffn + moe.moe_layers * (f.always + active_routed);
    } else {
        ffn_total = ffn_active = arch.layers * dense_ffn;
    }
    const std::uint64_t common = embeddings + mixers + m.params_extra;
    const std::uint64_t active = common + ffn_active;
    const std::uint64_t untied_input = arch.tied_embeddings ? 0 : input_embedding;
    return ParamCount{common + ffn_total, active, active - untied_input, active - embeddings};
}

}  // namespace canitrun
