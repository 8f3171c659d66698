#include <algorithm>
#include <string>

#include "canitrun/checked.hpp"
#include "canitrun/layer_kinds.hpp"
#include "layout_builder.hpp"

// Mixture-of-experts architectures whose FFNs alternate or lead with dense layers, as the pinned
// llama.cpp's src/models/<arch>.cpp load them: ernie4-5.cpp (ernie4_5-moe), llama4.cpp,
// mimo2.cpp, step35.cpp, minimax-m3.cpp, deepseek4.cpp, hy-v4.cpp (hy_v4) and mistral4.cpp.

namespace canitrun::layout {

// ERNIE 4.5 MoE (ernie4-5.cpp, shared with ernie4_5): plain q/k/v/o, the first
// (layers - moe_layers) FFNs dense (leading_dense_block_count), then routed experts with the
// selection bias (moe_statics.e_score_correction_bias, written as exp_probs_b) and, where the
// model has them, the shared experts as one FFN of their summed width. The converter drops the
// MTP block (conversion/ernie.py).
void build_ernie45_moe(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, false);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, true);
    }
}

// Mistral Small 4 (mistral4.cpp: deepseek2's loader and graph under its own name, llama.cpp
// PR #20649): DeepSeek-V3's MLA (q through its LoRA) and one shared expert on every layer, with
// two differences. The router has a weight and no bias (transformers' Mistral4TopkRouter;
// softmax routing), so there is no exp_probs_b. The checkpoint stores each layer's experts
// stacked, gate and up as one experts.gate_up_proj, and the converter keeps them so
// (conversion/mistral3.py's Mistral4Model: merge_expert False, the name mapped to
// FFN_GATE_UP_EXP), which create_tensor_gate_up_exps loads in place of gate and up.
void build_mistral4(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const MoE& e = *a.moe;
    const LayerGroup& g = group_or_empty(m, LayerKind::mla);
    const std::uint64_t dense_layers = a.layers - e.moe_layers;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        mla_attention(b, m, g, il);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        if (static_cast<std::uint64_t>(il) < dense_layers) {
            dense_ffn(b, m, il);
            continue;
        }
        b.blk(il, "ffn_gate_inp.weight", {a.hidden_size, e.experts});
        b.blk(il, "ffn_gate_up_exps.weight",
              {a.hidden_size, checked::mul(2, e.expert_intermediate_size), e.experts});
        b.blk(il, "ffn_down_exps.weight", {e.expert_intermediate_size, a.hidden_size, e.experts});
        shared_expert(b, m, il, false);
    }
}

// Llama 4 (llama4.cpp): chunked attention on 3 of every 4 layers and NoPE on the 4th (neither
// has tensors of its own; the q/k L2 norm has no weight), routed experts on every
// interleave_moe_layer_step-th layer counted from step - 1 (the step is layers / moe_layers:
// Scout 1, Maverick 2) with one shared expert as wide as the experts, the other layers a dense
// SwiGLU of intermediate_size (config.json's intermediate_size_mlp). The converter writes
// rope_freqs only for a llama3 rope_scaling (conversion/llama.py): Scout's; Maverick's is null.
void build_llama4(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    rope_freqs(b, m);
    const std::uint64_t step = a.moe->moe_layers ? a.layers / a.moe->moe_layers : 0;
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, false);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        if (step > 0 && (static_cast<std::uint64_t>(il) + 1) % step == 0) {
            moe_ffn(b, m, il);
            shared_expert(b, m, il, false);
        } else {
            dense_ffn(b, m, il);
        }
    }
}

namespace {

// The attention of a MiMo checkpoint that ships one fused qkv_proj (model_type mimo_v2: V2.5 and
// later; MiMo-V2-Flash, family mimo-v2, has separate q/k/v): the converter writes it as one
// attn_qkv of [Q | K | V] rows (conversion/mimo.py, _tp_aware_qkv_dequant regroups the TP
// shards), and mimo2.cpp takes Q, K and V as views of it (create_tensor_qkv accepts either).
void mimo2_fused_attention(Builder& b, const Model& m, const LayerGroup& g, int il) {
    const auto& a = m.arch;
    const AttentionDims d = attention_dims(m, g);
    const std::uint64_t q_dim = checked::mul(a.attention.heads, d.k_dim);
    const std::uint64_t kv_dim = checked::mul(d.kv_heads, checked::add(d.k_dim, d.v_dim));
    b.blk(il, "attn_qkv.weight", {a.hidden_size, checked::add(q_dim, kv_dim)});
    b.blk(il, "attn_output.weight", {checked::mul(a.attention.heads, d.v_dim), a.hidden_size});
}

}  // namespace

// MiMo-V2-Flash (mimo2.cpp): every layer has the model's query heads; the full layers its KV
// heads and the sliding ones their group's (head_count_kv per layer), a learned sink per head on
// the sliding layers only (add_swa_attention_sink_bias; none on the full ones), the first
// (layers - moe_layers) FFNs dense, then routed experts with the routing bias (noaux_tc) and no
// shared expert. The three MTP blocks are left out: llama.cpp skips them unless asked to load
// them.
void build_mimo2(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const auto kinds = layer_kinds(m);
    const bool fused_qkv = m.family != "mimo-v2";
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        const LayerKind kind = kinds[static_cast<std::size_t>(il)];
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        if (fused_qkv) {
            mimo2_fused_attention(b, m, group_or_empty(m, kind), il);
        } else {
            attention(b, m, group_or_empty(m, kind), il, 1, false);
        }
        if (kind == LayerKind::sliding) b.blk(il, "attn_sinks.weight", {a.attention.heads});
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, true);
    }
}

// Step-3.5-Flash (step35.cpp): query heads per layer (head_count is an array: the sliding
// group's 96, the full layers' 64), per-head q/k norms, a head-wise sigmoid gate (attn_gate, one
// logit per query head), one rope_freqs of head_dim / 2 (the converter writes it for config.json's
// llama3 rope_scaling), the first (layers - moe_layers) FFNs dense, then routed experts with the
// selection bias and a shared expert. The three MTP blocks are left out: llama.cpp skips them
// unless asked to load them.
void build_step35(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const auto kinds = layer_kinds(m);
    embeddings(b, m);
    rope_freqs(b, m);
    for (int il = 0; il < static_cast<int>(kinds.size()); ++il) {
        const LayerGroup& g = group_or_empty(m, kinds[static_cast<std::size_t>(il)]);
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, g, il, 1, false);
        qk_norm(b, m, il);
        b.blk(il, "attn_gate.weight", {a.hidden_size, attention_dims(m, g).heads});
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, true);
    }
}

// MiniMax-M3 (minimax-m3.cpp): per-head q/k norms, the first (layers - moe_layers) FFNs dense
// (leading_dense_block_count), then routed experts with the sigmoid routing bias and one shared
// expert as wide as the experts; every layer whose group has an indexer (the MoE ones) also
// loads MiniMax Sparse Attention's q / k projections and norms, which the converter writes in
// F32 and llama-quantize leaves so. The released weights have no MTP modules.
void build_minimax_m3(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const auto order = layer_group_order(m);
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(order.size()); ++il) {
        const LayerGroup& g = a.layer_groups[order[static_cast<std::size_t>(il)]];
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, g, il, 1, false);
        qk_norm(b, m, il);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, true);
        if (g.index_head_dim == 0) continue;
        b.blk(il, "indexer.q_proj.weight",
              {a.hidden_size, checked::mul(g.index_heads, g.index_head_dim)});
        b.blk(il, "indexer.k_proj.weight", {a.hidden_size, g.index_head_dim});
        b.blk(il, "indexer.q_norm.weight", {g.index_head_dim});
        b.blk(il, "indexer.k_norm.weight", {g.index_head_dim});
    }
}

namespace {

// A DeepSeek V4 layer's attention (deepseek4.cpp): sinks, q through its LoRA, one K head that
// is also V, the grouped low-rank output (attn_output_a is {heads x head / groups, groups x
// rank} in the file), the compressor of a compressed layer, and the ratio-4 layers' indexer.
void deepseek4_attention(Builder& b, const Model& m, const LayerGroup& g, int il) {
    const auto& a = m.arch;
    const std::uint64_t h = a.hidden_size;
    const std::uint64_t heads = a.attention.heads;
    const std::uint64_t hd = attention_dims(m, g).k_dim;
    const std::uint64_t q_dim = checked::mul(heads, hd);
    b.blk(il, "attn_norm.weight", {h});
    b.blk(il, "attn_sinks.weight", {heads});
    b.blk(il, "attn_q_a.weight", {h, g.q_lora_rank});
    b.blk(il, "attn_q_a_norm.weight", {g.q_lora_rank});
    b.blk(il, "attn_q_b.weight", {g.q_lora_rank, q_dim});
    b.blk(il, "attn_kv.weight", {h, hd});
    b.blk(il, "attn_kv_a_norm.weight", {hd});
    const std::uint64_t groups = std::max<std::uint64_t>(a.output_groups, 1);
    b.blk(il, "attn_output_a.weight", {q_dim / groups, checked::mul(groups, a.output_lora_rank)});
    b.blk(il, "attn_output_b.weight", {checked::mul(groups, a.output_lora_rank), h});
    if (g.compress_ratio == 0) return;
    const std::uint64_t coff = g.compress_ratio == 4 ? 2 : 1;
    b.blk(il, "attn_compressor_kv.weight", {h, coff * hd});
    b.blk(il, "attn_compressor_gate.weight", {h, coff * hd});
    b.blk(il, "attn_compressor_ape.weight", {coff * hd, g.compress_ratio});
    b.blk(il, "attn_compressor_norm.weight", {hd});
    if (g.index_head_dim == 0) return;
    const std::uint64_t id = g.index_head_dim;
    b.blk(il, "indexer.proj.weight", {h, g.index_heads});
    b.blk(il, "indexer.attn_q_b.weight", {g.q_lora_rank, checked::mul(g.index_heads, id)});
    b.blk(il, "indexer_compressor_kv.weight", {h, 2 * id});
    b.blk(il, "indexer_compressor_gate.weight", {h, 2 * id});
    b.blk(il, "indexer_compressor_ape.weight", {2 * id, g.compress_ratio});
    b.blk(il, "indexer_compressor_norm.weight", {id});
}

// The hyper-connections' mixers of layer il (deepseek4.cpp, hy-v4.cpp): before attention and
// before the FFN, a matrix from the hc_mult streams to `mix` coefficients, their bias and
// `scales` scales.
void hyper_connection_mixers(Builder& b, const Model& m, int il, std::uint64_t mix,
                             std::uint64_t scales) {
    const std::uint64_t streams = checked::mul(m.arch.hyper_connections, m.arch.hidden_size);
    for (const char* part : {"attn", "ffn"}) {
        b.blk(il, std::string("hc_") + part + "_fn.weight", {streams, mix});
        b.blk(il, std::string("hc_") + part + "_base.weight", {mix});
        b.blk(il, std::string("hc_") + part + "_scale.weight", {scales});
    }
}

// The head that collapses the streams before the output norm (LLM_TENSOR_HC_HEAD_*).
void hyper_connection_head(Builder& b, const Model& m) {
    const std::uint64_t hc = m.arch.hyper_connections;
    b.add("output_hc_fn.weight", {checked::mul(hc, m.arch.hidden_size), hc});
    b.add("output_hc_base.weight", {hc});
    b.add("output_hc_scale.weight", {1});
}

}  // namespace

// DeepSeek V4 (deepseek4.cpp): hyper-connections (hc_mult residual streams mixed before and
// after attention and FFN, and once before the output), the attention above, and every layer
// MoE with one shared expert; the first hash_layers route by a token-id table (an i32
// {experts_per_token, vocab} tensor llama-quantize leaves alone), the others by the bias.
// The MTP block is not in the converted file. A checkpoint that reads images (V4-Flash-Vision-Exp)
// adds a second routing bias on every layer, hash layers included, that image tokens route by
// (ffn.gate.bias_vl, converted as exp_probs_b_vl; deepseek4.cpp loads it where present).
void build_deepseek4(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const bool image_bias = std::ranges::find(m.modalities, "image") != m.modalities.end();
    const std::uint64_t h = a.hidden_size;
    const std::uint64_t hc = a.hyper_connections;
    const std::uint64_t mix = checked::mul(checked::add(2, hc), hc);
    const auto order = layer_group_order(m);
    embeddings(b, m);
    hyper_connection_head(b, m);
    for (int il = 0; il < static_cast<int>(order.size()); ++il) {
        deepseek4_attention(b, m, a.layer_groups[order[static_cast<std::size_t>(il)]], il);
        hyper_connection_mixers(b, m, il, mix, 3);
        b.blk(il, "ffn_norm.weight", {h});
        moe_ffn(b, m, il);
        if (static_cast<std::uint64_t>(il) < a.hash_layers) {
            b.blk(il, "ffn_gate_tid2eid.weight", {a.moe->experts_per_token, a.vocab_size});
        } else {
            b.blk(il, "exp_probs_b.bias", {a.moe->experts});
        }
        if (image_bias) b.blk(il, "exp_probs_b_vl.bias", {a.moe->experts});
        shared_expert(b, m, il, false);
    }
}

// Tencent Hy4 (hy-v4.cpp, load_arch_tensors): DeepSeek-V3's MLA (attn_k_b / attn_v_b split)
// with a learnable sink per head and an elementwise sigmoid gate on its output (attn_gate, one
// value per head and V dimension), the lightning indexer only on the layers that own one
// (attention.indexer.types "full"; the converter writes no copies), hyper-connections without
// DeepSeek V4's combination term (2 x hc_mult coefficients, 2 scales), and the first
// leading_dense_block_count FFNs dense, then routed experts with exp_probs_b and one shared
// expert. The MTP layer is dropped by the converter (conversion/hy_v4.py).
void build_hy_v4(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const std::uint64_t h = a.hidden_size;
    const std::uint64_t heads = a.attention.heads;
    const auto order = layer_group_order(m);
    embeddings(b, m);
    hyper_connection_head(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        const LayerGroup* own = mla_group_at(m, order, il);
        const LayerGroup& g = own != nullptr ? *own : group_or_empty(m, LayerKind::mla);
        const std::uint64_t v_head = mla_v_head_dim(a, g);
        b.blk(il, "attn_norm.weight", {h});
        b.blk(il, "attn_sinks.weight", {heads});
        mla_attention(b, m, g, il);
        b.blk(il, "attn_gate.weight", {h, checked::mul(heads, v_head)});
        if (g.index_head_dim > 0) indexer(b, m, g, il);
        hyper_connection_mixers(b, m, il, checked::mul(2, a.hyper_connections), 2);
        b.blk(il, "ffn_norm.weight", {h});
        dense_lead_ffn(b, m, il, true);
    }
}

}  // namespace canitrun::layout
