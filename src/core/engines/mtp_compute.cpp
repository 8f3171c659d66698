// The MTP draft context's compute buffer (llamacpp_engine.hpp, llamacpp_mtp_compute_bytes):
// the graph of the model's one MTP block, by the layers' own rules for its attention and FFN.

#include <algorithm>

#include "cache_setup.hpp"
#include "canitrun/checked.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/tensor_layout.hpp"
#include "layer_rows.hpp"
#include "moe_floats.hpp"

namespace canitrun {
namespace {

// The MTP graph (qwen35.cpp graph_mtp, lines 486-640 at 0ad4a86; glm4-moe.cpp graph_mtp, lines
// 132-290) runs one full-attention decoder block, the stack's own kind, on every token of the
// ubatch: eh_proj over the normed embedding and hidden state, then q / k / v (build_qkv,
// qwen35.cpp:557, glm4-moe.cpp:199; Qwen 3.5's q carries its output gate, twice the heads x
// head_dim), build_attn over the context's cells (qwen35.cpp:597, glm4-moe.cpp:223), the FFN
// (qwen35.cpp:613; glm4-moe.cpp:235-259, routed experts and a shared one), and only then picks
// the outputs for the shared head (qwen35.cpp:633, glm4-moe.cpp:272): the FFN spans the whole
// ubatch, unlike the stack's last layer (nemotron_h_moe's block picks them before its MoE
// sub-layer: ffn_rows). With a single layer the KQ mask is freed after the
// attention, so the buffer is the larger of two phases, each per ubatch token in f32:
// - attention: two n_embd rows (the block's input, eh_proj's output, kept for the residual, and
//   the normed row), q (x 2 with the gate), k and v, the attention's output (heads x v) and,
//   without flash attention, the KQ scores (heads x cells), beside the mask (device_mask_of);
// - FFN: the two rows and the FFN's own floats at its peak: a dense model's gate, up and GLU
//   (3 x widest_ffn_width), an MoE model's experts (moe_ffn_floats).
// Derived, not fitted; against the pinned libllama's CPU buffers (llama_probe --mtp,
// docs/ACCURACY.md's MTP rows) it is exact for Qwen 3.5 9B at 32768 cells with and without flash
// attention and at 131072 (88.02, 1132.01, 172.02 MiB), and GLM-4.5-Air's reads 146 MiB at
// 32768 cells (148.01) and 196 at 131072 (200.01); Nemotron 3.5 Lightning's whole mtp term (its
// MoE cropped to the outputs) reads 753.00 MiB against 752.51 at 4096 cells, 1001.00 against
// 1000.51 at 131072 and 2889.00 against 2881.51 without flash attention. Where the block is MLA
// (DeepSeek, GLM-5) the heads' widths stand in for the latent attention's: unconfirmed.
std::uint64_t attention_floats(const Model& m, std::uint64_t n_kv, bool flash_attn) {
    // the stack's last full-attention (or MLA) group sets the block's widths
    LayerGroup block;
    for (const auto& g : m.arch.layer_groups) {
        if (g.kind == LayerKind::full || g.kind == LayerKind::mla) block = g;
    }
    const AttentionDims d = attention_dims(m, block);
    const std::uint64_t heads = d.heads;
    const std::uint64_t q =
        checked::mul(checked::mul(heads, d.k_dim), m.arch.attention.output_gate ? 2 : 1);
    const std::uint64_t kv = checked::mul(d.kv_heads, checked::add(d.k_dim, d.v_dim));
    const std::uint64_t out = checked::mul(heads, d.v_dim);
    const std::uint64_t kq = flash_attn ? 0 : checked::mul(heads, n_kv);
    return checked::add(checked::add(checked::mul(2, m.arch.hidden_size), q),
                        checked::add(checked::add(kv, out), kq));
}

// The rows the block's FFN runs on. nemotron_h_moe's graph_mtp gathers the output rows before
// its MoE sub-layer (crop_before_ffn, nemotron-h-moe.cpp lines 54-57 and 89-92 at 0ad4a86: the
// context is reserved with embeddings_nextn off, llama-context.cpp line 119), so its FFN spans
// the outputs the graph is reserved for; the others' FFN spans the whole ubatch.
std::uint64_t ffn_rows(const Model& m, const CacheSetup& setup) {
    const auto arch = llama_arch(m);
    return arch && *arch == "nemotron_h_moe" ? setup.g.outputs : setup.g.ubatch;
}

}  // namespace

Result<Bytes> llamacpp_mtp_compute_bytes(const Model& model, const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(const auto setup, cache_setup(model, options));
    CANITRUN_TRY_ASSIGN(const Bytes mask, device_mask_of(model, setup));
    return catch_overflow(
        [&]() -> Result<Bytes> {
            const std::uint64_t per_token = checked::mul(setup.g.ubatch, kF32Bytes);
            const Bytes attention = checked::add(
                mask, checked::mul(per_token,
                                   attention_floats(model, setup.g.n_ctx_seq, setup.flash_attn)));
            const std::uint64_t ffn = model.is_moe() ? moe_ffn_floats(model, setup.routed_down)
                                                     : checked::mul(3, widest_ffn_width(model));
            const Bytes ffn_phase =
                checked::mul(checked::mul(ffn_rows(model, setup), kF32Bytes),
                             checked::add(checked::mul(2, model.arch.hidden_size), ffn));
            return std::max(attention, ffn_phase);
        },
        [&] {
            return overflow_error("the MTP context's compute buffer for " + model.id,
                                  "lower --ctx or --ubatch");
        });
}

}  // namespace canitrun
