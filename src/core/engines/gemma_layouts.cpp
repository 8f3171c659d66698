#include <algorithm>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/per_layer_embedding.hpp"
#include "layout_builder.hpp"

// Gemma 3n and Gemma 4 as the pinned llama.cpp's src/models/gemma3n.cpp and gemma4.cpp load
// them: Gemma 3's layer (per-head q/k norms, norms after attention and FFN) with per-layer input
// embeddings, and in Gemma 3n AltUp and LAuReL around it.

namespace canitrun::layout {
namespace {

// The per-layer inputs: one embedding table of `width` per layer for every token (kept on the
// host, llama_host_input_tensor), their projection from the hidden state and its norm.
void per_layer_inputs(Builder& b, const Model& m, std::uint64_t width) {
    const auto& a = m.arch;
    const std::uint64_t all = checked::mul(width, a.layers);
    b.add("per_layer_token_embd.weight", {all, a.vocab_size});
    b.add("per_layer_model_proj.weight", {a.hidden_size, all});
    b.add("per_layer_proj_norm.weight", {width});
}

// A layer's gate into its per-layer input, the projection back and its norm.
void per_layer_input_gate(Builder& b, const Model& m, int il, std::uint64_t width) {
    const auto& a = m.arch;
    b.blk(il, "inp_gate.weight", {a.hidden_size, width});
    b.blk(il, "proj.weight", {width, a.hidden_size});
    b.blk(il, "post_norm.weight", {a.hidden_size});
}

}  // namespace

// Gemma 3n (gemma3n.cpp): llama.cpp reads neither AltUp's 4 streams, LAuReL's rank 64 nor the
// per-layer width 256 from the file (llama-hparams.h's defaults), loads q/k/v in every layer,
// the KV-sharing ones too, and sizes every FFN with layer 0's width.
void build_gemma3n(Builder& b, const Model& m) {
    constexpr std::uint64_t n_altup = 4;
    constexpr std::uint64_t laurel_rank = 64;
    constexpr std::uint64_t per_layer = kGemma3nPerLayerWidth;
    const auto& a = m.arch;
    const std::uint64_t h = a.hidden_size;
    embeddings(b, m);
    b.add("altup_proj.weight", {h, h, n_altup - 1});
    b.add("altup_unembd_proj.weight", {h, h, n_altup - 1});
    per_layer_inputs(b, m, per_layer);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {h});
        attention(b, m, il, 1, false);
        qk_norm(b, m, il);
        b.blk(il, "post_attention_norm.weight", {h});
        b.blk(il, "ffn_norm.weight", {h});
        dense_ffn(b, m, il);
        b.blk(il, "post_ffw_norm.weight", {h});
        per_layer_input_gate(b, m, il, per_layer);
        b.blk(il, "altup_correct_coef.weight", {n_altup, n_altup});
        b.blk(il, "altup_correct_scale.weight", {h});
        b.blk(il, "altup_predict_coef.weight", {n_altup, n_altup * n_altup});
        b.blk(il, "altup_router.weight", {h, n_altup});
        b.blk(il, "altup_router_norm.weight", {h});
        b.blk(il, "laurel_l.weight", {h, laurel_rank});
        b.blk(il, "laurel_r.weight", {laurel_rank, h});
        b.blk(il, "laurel_post_norm.weight", {h});
    }
}

// Gemma 4 (gemma4.cpp): each layer kind's own head dim and KV heads (the full group's global
// ones), k, k norm and v in every layer, the KV-sharing ones too, whose cache they never fill
// (gemma4.cpp at 0ad4a86 loads them where the file has them, TENSOR_NOT_REQUIRED, and
// Unsloth's E4B and E2B files do: their 720 and 601 tensors, validation/llama-logs/metal-001
// and -004, are these layouts to the tensor), no v where the keys double as values (k_eq_v),
// one rope_freqs for the full layers' proportional RoPE, a scalar per layer; the E models'
// per-layer inputs and E2B's wider FFN in the sharing layers; the 26B-A4B's dense MLP
// (config.json's intermediate_size, its shared expert here) beside 128 experts with a fused
// gate+up, the router's scale and a scale per expert.
void build_gemma4(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const std::uint64_t h = a.hidden_size;
    const std::uint64_t kv_layers = a.layers - std::min(a.shared_kv_layers, a.layers);
    const std::uint64_t dense_ff = a.intermediate_size != 0 || !m.is_moe()
                                       ? a.intermediate_size
                                       : a.moe->shared_expert_intermediate_size;
    const std::vector<LayerKind> kinds = layer_kinds(m);
    embeddings(b, m);
    if (a.per_layer_input_size > 0) per_layer_inputs(b, m, a.per_layer_input_size);
    if (const LayerGroup* full = group_of(m, LayerKind::full)) {
        b.add("rope_freqs.weight", {attention_dims(m, *full).k_dim / 2});
    }
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        const LayerGroup& g = group_or_empty(m, kinds[static_cast<std::size_t>(il)]);
        const AttentionDims d = attention_dims(m, g);
        const bool has_kv = static_cast<std::uint64_t>(il) < kv_layers;
        const std::uint64_t q_dim = checked::mul(a.attention.heads, d.k_dim);
        b.blk(il, "attn_norm.weight", {h});
        b.blk(il, "attn_q.weight", {h, q_dim});
        b.blk(il, "attn_q_norm.weight", {d.k_dim});
        b.blk(il, "attn_k.weight", {h, checked::mul(d.kv_heads, d.k_dim)});
        b.blk(il, "attn_k_norm.weight", {d.k_dim});
        if (!g.k_eq_v) b.blk(il, "attn_v.weight", {h, checked::mul(d.kv_heads, d.v_dim)});
        b.blk(il, "attn_output.weight", {q_dim, h});
        b.blk(il, "post_attention_norm.weight", {h});
        b.blk(il, "layer_output_scale.weight", {1});
        const std::uint64_t ff =
            has_kv || a.shared_kv_intermediate_size == 0 ? dense_ff : a.shared_kv_intermediate_size;
        b.blk(il, "ffn_norm.weight", {h});
        b.blk(il, "ffn_gate.weight", {h, ff});
        b.blk(il, "ffn_up.weight", {h, ff});
        b.blk(il, "ffn_down.weight", {ff, h});
        b.blk(il, "post_ffw_norm.weight", {h});
        if (m.is_moe()) {
            const MoE& e = *a.moe;
            b.blk(il, "ffn_gate_inp.weight", {h, e.experts});
            b.blk(il, "ffn_gate_inp.scale", {h});
            b.blk(il, "pre_ffw_norm_2.weight", {h});
            b.blk(il, "post_ffw_norm_1.weight", {h});
            b.blk(il, "post_ffw_norm_2.weight", {h});
            b.blk(il, "ffn_gate_up_exps.weight",
                  {h, checked::mul(2, e.expert_intermediate_size), e.experts});
            b.blk(il, "ffn_down_exps.weight", {e.expert_intermediate_size, h, e.experts});
            b.blk(il, "ffn_down_exps.scale", {e.experts});
        }
        if (a.per_layer_input_size > 0) per_layer_input_gate(b, m, il, a.per_layer_input_size);
    }
}

}  // namespace canitrun::layout
