#include "canitrun/checked.hpp"
#include "canitrun/layer_kinds.hpp"
#include "layout_builder.hpp"

// Spark-X2.5 (XHToken) as the pinned llama.cpp's src/models/spark2-5.cpp loads it (0ad4a86,
// load_arch_tensors; conversion/spark2_5.py): a Llama-like layer whose q, k and v are one fused
// matrix (the checkpoint's q_k_v_proj), a head-wise sigmoid gate on the attention output (g_proj:
// one value a head, hidden x heads) and a gated FFN; sliding and full layers share the shapes.

namespace canitrun::layout {

void build_spark2_5(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    const AttentionDims d = attention_dims(m, group_or_empty(m, LayerKind::full));
    const std::uint64_t q_dim = checked::mul(a.attention.heads, d.k_dim);
    const std::uint64_t k_dim = checked::mul(d.kv_heads, d.k_dim);
    const std::uint64_t v_dim = checked::mul(d.kv_heads, d.v_dim);
    const std::uint64_t qkv = checked::add(checked::add(q_dim, k_dim), v_dim);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        b.blk(il, "attn_qkv.weight", {a.hidden_size, qkv});
        b.blk(il, "attn_gate.weight", {a.hidden_size, a.attention.heads});
        b.blk(il, "attn_output.weight", {checked::mul(a.attention.heads, d.v_dim), a.hidden_size});
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_ffn(b, m, il);
    }
}

}  // namespace canitrun::layout
