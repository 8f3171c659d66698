#include <initializer_list>
#include <string>

#include "canitrun/checked.hpp"
#include "canitrun/layer_kinds.hpp"
#include "layout_builder.hpp"

// The hybrid architectures' tensors, as the pinned llama.cpp's src/models/<arch>.cpp load them:
// qwen35.cpp, qwen35moe.cpp and qwen3next.cpp (Gated DeltaNet), granite-hybrid.cpp and
// nemotron-h.cpp (Mamba-2), kimi-linear.cpp (Kimi Delta Attention and MLA), lfm2.cpp and
// lfm2moe.cpp (short convolutions), jamba.cpp (Mamba-1), falcon-h1.cpp (attention and Mamba-2
// side by side).

namespace canitrun::layout {
namespace {

// Gated DeltaNet as qwen35.cpp / qwen35moe.cpp (separate beta and alpha) and qwen3next.cpp
// (fused ssm_ba) build it.
void hybrid_gated_delta_net(Builder& b, const Model& m, int il, bool fused_ba) {
    const auto& a = m.arch;
    const LayerGroup& g = group_or_empty(m, LayerKind::linear);
    const std::uint64_t key_dim = checked::mul(g.key_heads, g.key_head_dim);
    const std::uint64_t value_dim = checked::mul(g.value_heads, g.value_head_dim);
    const std::uint64_t conv_dim = checked::add(checked::mul(2, key_dim), value_dim);
    b.blk(il, "attn_qkv.weight", {a.hidden_size, conv_dim});
    b.blk(il, "attn_gate.weight", {a.hidden_size, value_dim});
    b.blk(il, "ssm_conv1d.weight", {g.conv_kernel, conv_dim});
    b.blk(il, "ssm_dt.bias", {g.value_heads});
    b.blk(il, "ssm_a", {g.value_heads});
    if (fused_ba) {
        b.blk(il, "ssm_ba.weight", {a.hidden_size, checked::mul(2, g.value_heads)});
    } else {
        b.blk(il, "ssm_beta.weight", {a.hidden_size, g.value_heads});
        b.blk(il, "ssm_alpha.weight", {a.hidden_size, g.value_heads});
    }
    b.blk(il, "ssm_norm.weight", {g.value_head_dim});
    b.blk(il, "ssm_out.weight", {value_dim, a.hidden_size});
}

// Kimi Delta Attention as kimi-linear.cpp loads it: q, k, v each through its own short
// convolution (kept in f32, {kernel, 1, q/k/v width}), a low-rank forget gate (f_a, f_b) and
// output gate (g_a, g_b) of the head width, a per-head beta and A. Kimi K3's (kimi-k3.cpp:
// 82-106) has one full-rank output gate (ssm_g) and a plain [heads] A.
void kimi_delta_attention(Builder& b, const Model& m, int il, bool k3) {
    const auto& a = m.arch;
    const LayerGroup& g = group_or_empty(m, LayerKind::linear);
    const std::uint64_t heads = g.value_heads;
    const std::uint64_t head = g.key_head_dim;
    const std::uint64_t inner = checked::mul(heads, head);
    for (const char* x : {"q", "k", "v"}) {
        b.blk(il, std::string("ssm_conv1d_") + x + ".weight", {g.conv_kernel, 1, inner, 1});
    }
    b.blk(il, "attn_q.weight", {a.hidden_size, inner});
    b.blk(il, "attn_k.weight", {a.hidden_size, inner});
    b.blk(il, "attn_v.weight", {a.hidden_size, inner});
    b.blk(il, "ssm_f_a.weight", {a.hidden_size, head});
    b.blk(il, "ssm_f_b.weight", {head, inner});
    b.blk(il, "ssm_beta.weight", {a.hidden_size, heads});
    if (k3) {
        b.blk(il, "ssm_a", {heads});
    } else {
        b.blk(il, "ssm_a", {1, heads, 1, 1});
    }
    b.blk(il, "ssm_dt.bias", {inner});
    if (k3) {
        b.blk(il, "ssm_g.weight", {a.hidden_size, inner});
    } else {
        b.blk(il, "ssm_g_a.weight", {a.hidden_size, head});
        b.blk(il, "ssm_g_b.weight", {head, inner});
    }
    b.blk(il, "ssm_norm.weight", {head});
    b.blk(il, "attn_output.weight", {inner, a.hidden_size});
}

}  // namespace

void build_qwen_hybrid(Builder& b, const Model& m, bool fused_ba) {
    embeddings(b, m);
    const auto& a = m.arch;
    const auto kinds = layer_kinds(m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        b.blk(il, "post_attention_norm.weight", {a.hidden_size});
        if (kinds[static_cast<std::size_t>(il)] == LayerKind::linear) {
            hybrid_gated_delta_net(b, m, il, fused_ba);
        } else {
            attention(b, m, il, a.attention.output_gate ? 2 : 1, false);
            qk_norm(b, m, il);
        }
        moe_or_dense_ffn(b, m, il, true);
    }
}

// Qwen3.8-Flash-Next (qwen4exp.cpp:150-258): hyper-connections in place of every norm (a
// grouped norm over the streams, stored flat, a down and an up projection through the low rank
// and the streams' inject weights, before each layer's mixer and its FFN; before the head one
// without inject, and no output_norm), Qwen 3.5's Gated DeltaNet and gated attention, Qwen
// Sparse Attention's indexer on the full layers, the n-gram table (per_layer_token_embd, one
// row of `width` a hashed head) and its layer's key, value, norms and convolution, and every
// layer MoE with a gated shared expert.
void build_qwen4exp(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const std::uint64_t h = a.hidden_size;
    const std::uint64_t hc = a.hyper_connections;
    const std::uint64_t streams = checked::mul(hc, h);
    const std::uint64_t rank = a.hyper_connection_rank;
    const auto kinds = layer_kinds(m);
    b.add("token_embd.weight", {h, a.vocab_size});
    b.add("output_hc_norm.weight", {streams});
    b.add("output_hc_down.weight", {streams, rank});
    b.add("output_hc_up.weight", {rank, streams});
    if (!a.tied_embeddings) b.add("output.weight", {h, a.vocab_size});
    const auto& ngram = a.ngram_embedding;
    if (ngram) b.add("per_layer_token_embd.weight", {ngram->width, ngram->rows});
    const LayerGroup& full = group_or_empty(m, LayerKind::full);
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        for (const char* part : {"attn", "ffn"}) {
            const std::string p = std::string("hc_") + part;
            b.blk(il, p + "_norm.weight", {streams});
            b.blk(il, p + "_down.weight", {streams, rank});
            b.blk(il, p + "_up.weight", {rank, streams});
            b.blk(il, p + "_inject.weight", {streams, hc});
        }
        if (kinds[static_cast<std::size_t>(il)] == LayerKind::linear) {
            hybrid_gated_delta_net(b, m, il, false);
        } else {
            attention(b, m, il, a.attention.output_gate ? 2 : 1, false);
            qk_norm(b, m, il);
            if (full.index_head_dim > 0) {
                const std::uint64_t id = full.index_head_dim;
                b.blk(il, "indexer.q_proj.weight", {h, checked::mul(full.index_heads, id)});
                b.blk(il, "indexer.k_proj.weight", {h, id});
                b.blk(il, "indexer.q_norm.weight", {id});
                b.blk(il, "indexer.k_norm.weight", {id});
            }
        }
        if (ngram && static_cast<std::uint64_t>(il) == ngram->layer) {
            b.blk(il, "ple_key.weight", {h, streams});
            b.blk(il, "ple_value.weight", {h, h});
            b.blk(il, "ple_norm_key.weight", {streams});
            b.blk(il, "ple_norm_query.weight", {streams});
            b.blk(il, "ple_norm_conv.weight", {streams});
            b.blk(il, "ple_conv1d.weight", {ngram->conv_kernel, streams});
        }
        moe_or_dense_ffn(b, m, il, true);
    }
}

// Granite 4.0-H: Mamba-2 layers and GQA layers, each followed by a MoE with a shared expert or
// a dense SwiGLU.
void build_granite_hybrid(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const auto kinds = layer_kinds(m);
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        if (kinds[static_cast<std::size_t>(il)] == LayerKind::ssm) {
            mamba2_mixer(b, m, il);
        } else {
            attention(b, m, il, 1, false);
        }
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        moe_or_dense_ffn(b, m, il, false);
    }
}

// Nemotron-H (nemotron-h.cpp, shared by nemotron_h_moe): one block per layer, each a Mamba-2
// mixer, an attention mixer or an FFN alone; the FFN is squared ReLU (up, down), and in the MoE
// version routed experts with a routing bias and one shared expert.
void build_nemotron_h(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const auto kinds = layer_kinds(m);
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        const LayerKind kind = kinds[static_cast<std::size_t>(il)];
        if (kind == LayerKind::ssm) {
            mamba2_mixer(b, m, il);
        } else if (kind != LayerKind::ffn) {
            attention(b, m, il, 1, false);
        } else if (m.is_moe()) {
            const MoE& e = *a.moe;
            const std::uint64_t ff = e.expert_intermediate_size;
            const std::uint64_t sh = e.shared_expert_intermediate_size;
            b.blk(il, "ffn_gate_inp.weight", {a.hidden_size, e.experts});
            b.blk(il, "exp_probs_b.bias", {e.experts});
            b.blk(il, "ffn_down_exps.weight", {ff, a.hidden_size, e.experts});
            b.blk(il, "ffn_up_exps.weight", {a.hidden_size, ff, e.experts});
            b.blk(il, "ffn_down_shexp.weight", {sh, a.hidden_size});
            b.blk(il, "ffn_up_shexp.weight", {a.hidden_size, sh});
        } else {
            b.blk(il, "ffn_down.weight", {a.intermediate_size, a.hidden_size});
            b.blk(il, "ffn_up.weight", {a.hidden_size, a.intermediate_size});
        }
    }
}

// Kimi Linear (kimi-linear.cpp): KDA layers and MLA layers without RoPE, the first
// (layers - moe_layers) FFNs dense, then routed experts with a routing bias and a shared expert.
void build_kimi_linear(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const LayerGroup& mla = group_or_empty(m, LayerKind::mla);
    const auto kinds = layer_kinds(m);
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        if (kinds[static_cast<std::size_t>(il)] == LayerKind::linear) {
            kimi_delta_attention(b, m, il, false);
        } else {
            mla_attention(b, m, mla, il);
        }
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, true);
    }
}

// Kimi K3 (kimi-k3.cpp:53-166): Kimi Linear's stack with K3's KDA, a sigmoid output gate on the
// MLA layers (attn_gate, where attention.output_gate says so), the attention residuals' scores
// (attn_res_score and ffn_res_score a layer, output_res_score), and each MoE layer's routed
// experts on the latent width between ffn_routed_down and ffn_routed_up, with the latent's norm.
void build_kimi_k3(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const std::uint64_t h = a.hidden_size;
    const LayerGroup& mla = group_or_empty(m, LayerKind::mla);
    const std::uint64_t v_head = mla_v_head_dim(a, mla);
    const bool residuals = a.attention_residual_block > 0;
    const auto kinds = layer_kinds(m);
    embeddings(b, m);
    if (residuals) b.add("output_res_score.weight", {h});
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        b.blk(il, "attn_norm.weight", {h});
        b.blk(il, "ffn_norm.weight", {h});
        if (residuals) {
            b.blk(il, "attn_res_score.weight", {h});
            b.blk(il, "ffn_res_score.weight", {h});
        }
        if (kinds[static_cast<std::size_t>(il)] == LayerKind::linear) {
            kimi_delta_attention(b, m, il, true);
        } else {
            mla_attention(b, m, mla, il);
            if (a.attention.output_gate) {
                b.blk(il, "attn_gate.weight", {h, checked::mul(a.attention.heads, v_head)});
            }
        }
        dense_lead_ffn(b, m, il, true);
        const std::uint64_t latent = m.is_moe() ? a.moe->latent_size : 0;
        if (latent > 0 && il >= static_cast<int>(a.layers - a.moe->moe_layers)) {
            b.blk(il, "ffn_routed_down.weight", {h, latent});
            b.blk(il, "ffn_routed_up.weight", {latent, h});
            b.blk(il, "ffn_routed_norm.weight", {latent});
        }
    }
}

// LFM2 (lfm2.cpp, and lfm2moe.cpp alike): gated short convolutions (in_proj to B, C and x, a
// depthwise convolution of l_cache taps, out_proj) and GQA with per-head q/k norms; the final
// norm is named token_embd_norm; the first (layers - moe_layers) FFNs dense, then experts
// routed by a sigmoid with a bias, no shared expert.
void build_lfm2(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const LayerGroup& conv = group_or_empty(m, LayerKind::conv);
    const auto kinds = layer_kinds(m);
    b.add("token_embd.weight", {a.hidden_size, a.vocab_size});
    b.add("token_embd_norm.weight", {a.hidden_size});
    if (!a.tied_embeddings) b.add("output.weight", {a.hidden_size, a.vocab_size});
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        if (kinds[static_cast<std::size_t>(il)] == LayerKind::conv) {
            b.blk(il, "shortconv.conv.weight", {conv.conv_kernel, a.hidden_size});
            b.blk(il, "shortconv.in_proj.weight", {a.hidden_size, checked::mul(3, a.hidden_size)});
            b.blk(il, "shortconv.out_proj.weight", {a.hidden_size, a.hidden_size});
        } else {
            qk_norm(b, m, il);
            attention(b, m, il, 1, false);
        }
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, true);
    }
}

// Jamba (jamba.cpp): Mamba-1 layers and GQA layers without RoPE (layer_order; llama.cpp tells
// them apart by a head_count_kv of 0), each followed by an FFN: routed experts on every
// (layers / moe_layers)-th layer counted from step - 1 (Jamba 1.5's expert_layer_offset 1,
// period 2; llama.cpp tells them by ffn_gate_inp), a dense SwiGLU elsewhere. The mixer's dt
// rank is the converter's default ceil(hidden / 16) (conversion/jamba.py), which both 1.5
// checkpoints' mamba_dt_rank equal; the x projection yields dt, B and C.
void build_jamba(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const std::uint64_t h = a.hidden_size;
    const LayerGroup& g = group_or_empty(m, LayerKind::ssm);
    const std::uint64_t dt_rank = (h + 15) / 16;
    const std::uint64_t step = m.is_moe() && a.moe->moe_layers ? a.layers / a.moe->moe_layers : 0;
    const auto kinds = layer_kinds(m);
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        b.blk(il, "attn_norm.weight", {h});
        if (kinds[static_cast<std::size_t>(il)] == LayerKind::ssm) {
            b.blk(il, "ssm_in.weight", {h, checked::mul(2, g.inner_size)});
            b.blk(il, "ssm_conv1d.weight", {g.conv_kernel, g.inner_size});
            b.blk(il, "ssm_conv1d.bias", {g.inner_size});
            b.blk(il, "ssm_x.weight",
                  {g.inner_size, checked::add(dt_rank, checked::mul(2, g.state_size))});
            b.blk(il, "ssm_dt_norm.weight", {dt_rank});
            b.blk(il, "ssm_dt.weight", {dt_rank, g.inner_size});
            b.blk(il, "ssm_dt.bias", {g.inner_size});
            b.blk(il, "ssm_b_norm.weight", {g.state_size});
            b.blk(il, "ssm_c_norm.weight", {g.state_size});
            b.blk(il, "ssm_a", {g.state_size, g.inner_size});
            b.blk(il, "ssm_d", {g.inner_size});
            b.blk(il, "ssm_out.weight", {g.inner_size, h});
        } else {
            attention(b, m, il, 1, false);
        }
        b.blk(il, "ffn_norm.weight", {h});
        if (step > 0 && (static_cast<std::uint64_t>(il) + 1) % step == 0) {
            moe_ffn(b, m, il);
        } else {
            dense_ffn(b, m, il);
        }
    }
}

// Falcon-H1 (falcon-h1.cpp): every layer runs GQA attention and a Mamba-2 mixer side by side on
// the one attn_norm's output (the mixer's dimensions on the full group, has_parallel_ssm), then a
// SwiGLU FFN after ffn_norm, a name without ".weight" (the converter maps pre_ff_layernorm
// verbatim to FFN_PRE_NORM). The mixer's ssm_norm where the config's mamba_rms_norm gives the
// checkpoint one (falcon-h1.cpp loads it TENSOR_NOT_REQUIRED). The muP multipliers are folded
// into the weights (conversion/falcon_h1.py).
void build_falcon_h1(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const LayerGroup& g = group_or_empty(m, LayerKind::full);
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        mamba2_mixer(b, m, g, il, g.ssm_rms_norm);
        attention(b, m, il, 1, false);
        b.blk(il, "ffn_norm", {a.hidden_size});
        dense_ffn(b, m, il);
    }
}

}  // namespace canitrun::layout
