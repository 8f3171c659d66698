#include "canitrun/checked.hpp"
#include "canitrun/layer_kinds.hpp"
#include "layout_builder.hpp"

// Dots 3 Note Preview (rednote-hilab's Dots Studio) as the pinned llama.cpp's
// src/models/dots3note.cpp loads it (0ad4a86, load_arch_tensors; conversion/dots3.py): DeepSeek
// V3.2's absorbed MLA in two shapes, each layer's own: the full layers' (128 heads, a 512-wide
// latent, a DSA lightning indexer) and the sliding layers' (64 heads, a 1024-wide latent, no
// indexer; the `heads` and `window` of their mla group). Every layer also has an RMSNorm on the
// shared rope key before rope (attn_k_norm, the rope width) and a head-wise sigmoid gate on the
// attention output (attn_gate: one value a head, hidden x heads), as step35.cpp's. The first
// layer's FFN is dense, the others routed + shared experts with exp_probs_b (noaux_tc).

namespace canitrun::layout {

void build_dots3note(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const auto order = layer_group_order(m);
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        const LayerGroup* own = mla_group_at(m, order, il);
        const LayerGroup& g = own != nullptr ? *own : group_or_empty(m, LayerKind::mla);
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        mla_attention(b, m, g, il);
        b.blk(il, "attn_k_norm.weight", {g.qk_rope_head_dim});
        b.blk(il, "attn_gate.weight", {a.hidden_size, mla_heads(a, g)});
        if (g.index_head_dim > 0) indexer(b, m, g, il);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, true);
    }
}

}  // namespace canitrun::layout
