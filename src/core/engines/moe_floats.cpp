#include "moe_floats.hpp"

#include "canitrun/checked.hpp"

namespace canitrun {

namespace {

// Whether build_moe_ffn's down products (n_used x n_embd a token) fit where the gate and up
// outputs were freed (2 expert widths a token, 1 for two-matrix experts): ggml-alloc puts a
// tensor in the first free block that holds it, else past the highest live one.
bool moe_down_fits_freed(const Model& m) {
    const MoE& e = *m.arch.moe;
    return m.arch.hidden_size <= checked::mul(e.gated ? 2 : 1, e.expert_intermediate_size);
}

}  // namespace

// Floats per ubatch token that sit under the last layer's output on the CPU backend, when
// build_moe_ffn's sum of the routed experts lands above their outputs (llama.cpp 0ad4a86,
// ggml-alloc's allocation of the reserved graph, read with tools/accuracy/galloc_replay.py).
// With more than one expert per token the sum is ADDs of views of ffn_moe_weighted (n_used x
// n_embd), which cannot take its place; a shared expert run after the routed ones (the graph
// adds moe_out + shexp, so the routed nodes come first) keeps ffn_norm and ffn_inp alive, so
// no one-row hole is left below; and where ffn_moe_down (n_used x n_embd) fits in the freed
// gate and up outputs (n_embd <= 2 x expert width, 1 x for two-matrix experts) the first free
// block is the rest of theirs, above it. The residual adds, the output norm and result_norm
// then run in place there, and the logits go above: inp_embd, ffn_inp, ffn_norm, the router's
// probabilities and top-k (n_expert f32 each) and the n_used rows. Hunyuan-A13B at ubatch
// 2048, 32768 cells: result_norm at 353.01 MiB = 0.01 + (3 + 8) x 32 + 2 x 0.5, the buffer
// 1386.31 MiB, llama.cpp's own figure. A router with a selection bias (Ernie 4.5, GLM-4.7-
// Flash) keeps a third n_expert row, not counted (0.5 MiB at ubatch 2048 and 64 experts).
// With hyper-connections (DeepSeek V4) the head mixes the streams into a fresh tensor that
// lands elsewhere, and the rule does not apply.
std::uint64_t moe_sum_floats(const Model& m) {
    if (!m.is_moe() || m.arch.hyper_connections > 0) return 0;
    const MoE& e = *m.arch.moe;
    const bool shared = e.shared_experts > 0 || e.shared_expert_intermediate_size > 0;
    if (e.experts_per_token < 2 || !shared || !moe_down_fits_freed(m)) return 0;
    return checked::add(checked::mul(checked::add(2, e.experts_per_token), m.arch.hidden_size),
                        checked::mul(2, e.experts));
}

}  // namespace canitrun
