#include "canitrun/param_count.hpp"

#include "canitrun/checked.hpp"

namespace canitrun {
namespace {

// The sums below run in 128 bits: with every dimension within the loader's bounds (10^6, 10^4
// layers, 10^5 experts) no product comes near 2^128, and the totals are narrowed to 64 bits
// with a check at the end, so an absurd architecture is refused (OverflowError), never wrapped.
using Wide = checked::Wide;

Wide pick(Wide value, Wide fallback) {
    return value ? value : fallback;
}

// A Mamba mixer: Mamba-2's in_proj (z, x, B, C, dt), conv and out_proj; Mamba-1 (no groups)
// adds x_proj and dt_proj.
Wide wide_mamba_params(const Model& m, const LayerGroup& g) {
    const Wide h = m.arch.hidden_size;
    const Wide inner = g.inner_size;
    const Wide conv_channels = inner + 2 * Wide{g.groups} * g.state_size;
    Wide p = h * (inner + conv_channels + g.ssm_heads) + inner * h + g.conv_kernel * conv_channels;
    if (g.groups == 0) {
        // Mamba-1: x_proj and dt_proj, approximated (see data/SCHEMA.md).
        p += inner * (2 * Wide{g.state_size} + inner / 16) * 2;
    }
    return p;
}

// DeepSeek V4's attention (deepseek4.cpp): q through its LoRA, one K (= V) head, the grouped
// low-rank output, the two hyper-connection mixers; the compressor of a compressed layer (kv
// and gate of coff x head_dim, coff 2 at ratio 4, and its position table); the ratio-4 layers'
// indexer (weights, q_b, and its own compressor of 2 x index_head_dim).
Wide wide_compressed_params(const Model& m, const LayerGroup& g) {
    const Architecture& arch = m.arch;
    const Wide h = arch.hidden_size;
    const Wide heads = attention_dims(m, g).heads;
    const Wide hd = attention_dims(m, g).k_dim;
    const Wide q_lora = g.q_lora_rank;
    const Wide q = q_lora * (h + heads * hd);
    const Wide kv = h * hd * attention_dims(m, g).kv_heads;
    const Wide ol = arch.output_lora_rank;
    const Wide o = ol ? heads * hd * ol + Wide{arch.output_groups} * ol * h : heads * hd * h;
    const Wide hc = arch.hyper_connections;
    const Wide mixers = 2 * (hc * h) * ((2 + hc) * hc);
    Wide p = q + kv + o + mixers;
    if (g.compress_ratio > 0) {
        const Wide coff = g.compress_ratio == 4 ? 2 : 1;
        p += 2 * h * coff * hd + coff * hd * g.compress_ratio;
    }
    if (g.index_head_dim > 0) {
        const Wide id = g.index_head_dim;
        p += h * g.index_heads + q_lora * g.index_heads * id + 4 * h * id + 2 * id * 4;
    }
    return p;
}

// A full layer's indexer, Qwen Sparse Attention's (qwen4exp.cpp:224-228) and MiniMax Sparse
// Attention's (minimax-m3.cpp): a q projection of index_heads keys, one k projection, and their
// norms. MiniMax-M3: 6144 x 128 x 5 + 2 x 128 = 3,932,416 a layer.
Wide wide_full_indexer_params(const Model& m, const LayerGroup& g) {
    if (g.index_head_dim == 0) return 0;
    const Wide id = g.index_head_dim;
    return Wide{m.arch.hidden_size} * id * (Wide{g.index_heads} + 1) + 2 * id;
}

// The layer's mixer holds the indexer of a compressing (QSA) layer; MiniMax-M3's, without
// compress_ratio, is counted beside the layers (wide_full_indexers_beside), where the data's
// params.extra kept it, so the parts' split stays where it was.
Wide wide_qsa_indexer_params(const Model& m, const LayerGroup& g) {
    return g.compress_ratio > 0 ? wide_full_indexer_params(m, g) : 0;
}

Wide wide_full_indexers_beside(const Model& m) {
    Wide p = 0;
    for (const auto& g : m.arch.layer_groups) {
        if (g.kind == LayerKind::full && g.compress_ratio == 0) {
            p += Wide{g.count} * wide_full_indexer_params(m, g);
        }
    }
    return p;
}

Wide wide_mixer_params(const Model& m, const LayerGroup& g) {
    const Wide h = m.arch.hidden_size;
    const Attention& a = m.arch.attention;
    switch (g.kind) {
        case LayerKind::full:
        case LayerKind::sliding: {
            const AttentionDims d = attention_dims(m, g);
            // A gated attention (Qwen3-Next, Qwen 3.5) doubles the query projection for its gate.
            const Wide heads = d.heads;
            const Wide q_heads = a.output_gate ? 2 * heads : heads;
            const Wide ssm = has_parallel_ssm(g) ? wide_mamba_params(m, g) : 0;
            return h * d.k_dim * (q_heads + d.kv_heads) + h * d.v_dim * d.kv_heads +
                   heads * d.v_dim * h + ssm + wide_qsa_indexer_params(m, g);
        }
        case LayerKind::linear: {
            const Wide key_dim = Wide{g.key_heads} * g.key_head_dim;
            const Wide value_dim = Wide{g.value_heads} * g.value_head_dim;
            return h * (2 * key_dim + 2 * value_dim + 2 * Wide{g.value_heads}) + value_dim * h +
                   g.conv_kernel * (2 * key_dim + value_dim);
        }
        case LayerKind::ssm:
            return wide_mamba_params(m, g);
        case LayerKind::mla: {
            const Wide heads = mla_heads(m.arch, g);
            const Wide q_lora = g.q_lora_rank;
            const Wide kv_lora = g.kv_lora_rank;
            const Wide qk = Wide{g.qk_nope_head_dim} + g.qk_rope_head_dim;
            const Wide q = q_lora != 0 ? h * q_lora + q_lora * heads * qk : h * heads * qk;
            const Wide v_dim = pick(g.v_head_dim, a.v_head_dim);
            // Kimi K3's sigmoid output gate, one value per head and V dimension
            const Wide gate = a.output_gate ? h * heads * v_dim : 0;
            return q + h * (kv_lora + g.qk_rope_head_dim) +
                   kv_lora * heads * (g.qk_nope_head_dim + v_dim) + heads * v_dim * h + gate;
        }
        case LayerKind::conv: {
            // LFM2's in_proj (B, C and x), the depthwise convolution and out_proj
            const Wide c = g.inner_size;
            return 3 * h * c + Wide{g.conv_kernel} * c + c * h;
        }
        case LayerKind::ffn:
            return 0;  // its FFN is counted with the others
        case LayerKind::compressed:
            return wide_compressed_params(m, g);
    }
    return 0;
}

struct WideFfn {
    Wide always = 0;
    Wide routed = 0;
};

WideFfn wide_ffn_params(const Model& m, bool moe_layer) {
    const Architecture& arch = m.arch;
    const Wide h = arch.hidden_size;
    if (!moe_layer || !arch.moe) return {(arch.gated_ffn ? 3 : 2) * h * arch.intermediate_size, 0};
    const MoE& moe = *arch.moe;
    const Wide matrices = moe.gated ? 3 : 2;  // squared-ReLU experts have two
    const Wide expert = matrices * Wide{routed_expert_width(m)} * moe.expert_intermediate_size;
    const Wide shared = matrices * h * moe.shared_expert_intermediate_size;
    const Wide router = h * moe.experts;
    // a latent MoE's projections into and out of the latent, and the latent's norm
    const Wide latent = moe.latent_size;
    const Wide projections = latent ? 2 * h * latent + latent : 0;
    return {shared + router + projections, Wide{moe.experts} * expert};
}

// qwen4exp's low-rank hyper-connections (qwen4exp.cpp:159-163, 206-214): before each layer's
// mixer and its FFN a grouped norm (hidden x streams), a down and an up projection through the
// rank and the streams' inject weights; before the head one more without inject. And the
// n-gram embedding's layer (:240-247): key (hidden to streams x hidden), value, three grouped
// norms and the convolution over the streams. The table itself is not counted: the vendor
// counts it apart from the model's total (held off the accelerator), as Gemma's per-layer
// embeddings.
Wide wide_low_rank_hc_params(const Architecture& a) {
    if (a.hyper_connection_rank == 0) return 0;
    const Wide h = a.hidden_size;
    const Wide hc = a.hyper_connections;
    const Wide streams = hc * h;
    const Wide mixer = h * hc + 2 * streams * a.hyper_connection_rank;
    Wide p = Wide{a.layers} * 2 * (mixer + streams * hc) + mixer;
    if (a.ngram_embedding) {
        p += h * streams + h * h + 3 * streams + Wide{a.ngram_embedding->conv_kernel} * streams;
    }
    return p;
}

// An MLA layer's DSA indexer (deepseek32.cpp, glm-dsa.cpp, hy-v4.cpp:115-119 at 0ad4a86): q_b
// from the q LoRA to index_heads keys, one key projection with its LayerNorm's weight and bias,
// the per-head weights. Hy4 and GLM-5.2: 2048 x 32 x 128 + 6144 x 128 + 2 x 128 + 6144 x 32 =
// 9,371,904 a layer, on 21 layers 196,809,984.
Wide wide_mla_indexer_params(const Model& m) {
    Wide p = 0;
    for (const auto& g : m.arch.layer_groups) {
        if (g.kind != LayerKind::mla || g.index_head_dim == 0) continue;
        const Wide h = m.arch.hidden_size;
        const Wide id = g.index_head_dim;
        p += Wide{g.count} *
             (Wide{g.q_lora_rank} * g.index_heads * id + h * id + 2 * id + h * g.index_heads);
    }
    return p;
}

// Hy4's independent hyper-connections over MLA layers (hy-v4.cpp:90-92, 122-127): before each
// layer's attention and FFN a mixer from the hc streams to 2 x hc coefficients, its base and 2
// scales; before the output norm a head to hc, its base and one scale. Hy4 (hc 4): 78 x 2 x
// (24576 x 8 + 8 + 2) + 24576 x 4 + 4 + 1 = 30,770,717. DeepSeek V4's (compressed layers) are
// counted with its mixer (wide_compressed_params).
Wide wide_mla_hyper_connection_params(const Model& m) {
    const Architecture& a = m.arch;
    if (a.hyper_connections == 0 || count_layers(m, LayerKind::mla) == 0) return 0;
    const Wide hc = a.hyper_connections;
    const Wide streams = hc * a.hidden_size;
    return Wide{a.layers} * 2 * (streams * 2 * hc + 2 * hc + 2) + streams * hc + hc + 1;
}

}  // namespace

std::uint64_t sparse_attention_extra_params(const Model& m) {
    return checked::narrow(wide_mla_indexer_params(m) + wide_full_indexers_beside(m) +
                           wide_mla_hyper_connection_params(m));
}

std::uint64_t params_beside_layers(const Model& m) {
    return checked::add(m.params_extra, sparse_attention_extra_params(m));
}

std::uint64_t mixer_params(const Model& m, const LayerGroup& g) {
    return checked::narrow(wide_mixer_params(m, g));
}

FfnParams ffn_params(const Model& m, bool moe_layer) {
    const WideFfn f = wide_ffn_params(m, moe_layer);
    return {checked::narrow(f.always), checked::narrow(f.routed)};
}

std::optional<double> routed_params_per_token(const Model& m) {
    if (!m.arch.moe || m.arch.moe->experts == 0) return 0.0;
    const MoE& moe = *m.arch.moe;
    const std::optional<std::uint64_t> routed =
        overflow_or([&]() -> std::optional<std::uint64_t> { return ffn_params(m, true).routed; },
                    std::optional<std::uint64_t>{});
    if (!routed) return std::nullopt;
    const auto layers = static_cast<double>(moe.moe_layers ? moe.moe_layers : ffn_layer_count(m));
    return static_cast<double>(*routed) / static_cast<double>(moe.experts) *
           static_cast<double>(moe.experts_per_token) * layers;
}

ParamCount count_params(const Model& m) {
    const Architecture& arch = m.arch;
    const Wide h = arch.hidden_size;
    const Wide input_embedding = arch.vocab_size * h;
    const Wide embeddings = input_embedding * (arch.tied_embeddings ? 1 : 2);

    Wide mixers = 0;
    for (const auto& g : arch.layer_groups) mixers += g.count * wide_mixer_params(m, g);

    const Wide dense_ffn = wide_ffn_params(m, false).always;
    Wide ffn_total = 0, ffn_active = 0;
    if (arch.moe) {
        const MoE& moe = *arch.moe;
        const Wide dense_layers = ffn_layer_count(m) - moe.moe_layers;
        const WideFfn f = wide_ffn_params(m, true);
        const Wide active_routed = moe.experts ? f.routed / moe.experts * moe.experts_per_token : 0;
        ffn_total = dense_layers * dense_ffn + moe.moe_layers * (f.always + f.routed);
        ffn_active = dense_layers * dense_ffn + moe.moe_layers * (f.always + active_routed);
    } else {
        ffn_total = ffn_active = ffn_layer_count(m) * dense_ffn;
    }
    // attention residuals: a score vector before each layer's attention and FFN, one at the end
    const Wide residual_scores =
        arch.attention_residual_block ? (2 * Wide{arch.layers} + 1) * h : 0;
    const Wide common = embeddings + mixers + residual_scores + wide_low_rank_hc_params(arch) +
                        params_beside_layers(m);
    const Wide active = common + ffn_active;
    const Wide untied_input = arch.tied_embeddings ? 0 : input_embedding;
    return ParamCount{checked::narrow(common + ffn_total), checked::narrow(active),
                      checked::narrow(active - untied_input), checked::narrow(active - embeddings)};
}

}  // namespace canitrun
