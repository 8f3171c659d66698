#include "moe_floats.hpp"

#include <algorithm>

#include "canitrun/checked.hpp"

namespace canitrun {

bool has_shared_expert(const MoE& e) {
    return e.shared_experts > 0 || e.shared_expert_intermediate_size > 0;
}

bool moe_down_fits_freed(const Model& m) {
    const MoE& e = *m.arch.moe;
    return m.arch.hidden_size <= checked::mul(e.gated ? 2 : 1, e.expert_intermediate_size);
}

namespace {

// Rows of n_embd an MLA model's last layer keeps under its routed output beside ffn_norm: its
// ffn_inp (llama.cpp 0ad4a86, read with tools/accuracy/galloc_replay.py --trace). The last
// layer's flash attention is the KQ mask's last reader, so ggml-alloc frees the mask there
// (ggml-alloc.c:805-817, a parent freed when its last child is allocated) and leaves its hole
// (n_kv x n_ubatch f16) right above inp_embd. An MLA layer's output takes three more products
// after the attention (llama-graph.cpp:2652-2666, fattn_mla by wv_b, then its CONT; then wo),
// and these, the two GET_ROWS of the output tokens (deepseek2.cpp:636-638, kimi-linear.cpp:
// 488-490) and the ffn_inp they add up to, fill that hole; ffn_norm lands beside ffn_inp and
// the routed sum above both (ggml-alloc.c:208-252, best fit). Kimi K2.6 at ubatch 2048 and
// 32768 cells: inp_embd at 0.01 MiB, ffn_inp at 56.01, ffn_norm at 112.01, the sum and
// result_norm at 168.01, the logits at 224.01 = 0.01 + 4 x 56 MiB (llama.cpp's 1504.01 MiB).
// Kimi-Linear keeps ffn_inp at 164.03 above ffn_norm at 18.01, one row the same.
std::uint64_t mla_rows(const Model& m) {
    return count_layers(m, LayerKind::mla) > 0 ? 1 : 0;
}

}  // namespace

// Floats per ubatch token under the last layer's output on the CPU backend besides inp_embd,
// where a shared expert runs after the routed ones (the graph adds moe_out + shexp) and keeps
// ffn_norm, its input, alive (llama.cpp 0ad4a86, ggml-alloc on the reserved graph, read with
// tools/accuracy/galloc_replay.py). build_moe_ffn's output is a fresh tensor (ADDs of views of
// ffn_moe_weighted, or with one expert a token a CONT of down's view); the residual adds, the
// output norm and result_norm run in place on it, the logits above. Where it lands:
// - ffn_moe_down (n_used x n_embd) fits in the freed gate and up outputs (n_used >= 2,
//   moe_down_fits_freed): above it, over inp_embd, ffn_inp, ffn_norm, the router's
//   probabilities and top-k (n_expert f32 each) and the n_used rows. Hunyuan-A13B at ubatch
//   2048, 32768 cells: result_norm at 353.01 MiB = 0.01 + (3 + 8) x 32 + 2 x 0.5, the buffer
//   1386.31 MiB, llama.cpp's own figure. A router with a selection bias (Ernie 4.5) keeps a
//   third n_expert row, not counted (0.5 MiB at ubatch 2048, 64 experts).
// - otherwise down goes above the layer's tensors, and the router's, gate's and up's freed
//   outputs make one block from where the router's logits were, right above ffn_norm: one row.
//   GLM-4.5-Air at ubatch 2048: inp_embd at 0.01, ffn_norm at 32.01, result_norm at 64.01, the
//   logits at 96.01: 1280.01 MiB, llama.cpp's figure; Llama 4 (one expert a token) alike.
//   A model whose output phase holds a third row anyway (`third_row`) has it there: its
//   result_norm, a GET_ROWS made after the norm, takes ffn_norm's freed place (Qwen3.5-35B-A3B
//   at ubatch 2048: 16.01 MiB, h_nextn at 32.01, the logits at 48.01). An MLA layer keeps
//   ffn_inp under them too: mla_rows.
// With hyper-connections (DeepSeek V4) the head mixes the streams into a fresh tensor that
// lands elsewhere, and the rule does not apply.
std::uint64_t moe_sum_floats(const Model& m, bool third_row) {
    if (!m.is_moe() || m.arch.hyper_connections > 0) return 0;
    const MoE& e = *m.arch.moe;
    if (!has_shared_expert(e)) return 0;
    if (e.experts_per_token >= 2 && moe_down_fits_freed(m)) {
        return checked::add(checked::mul(checked::add(2, e.experts_per_token), m.arch.hidden_size),
                            checked::mul(2, e.experts));
    }
    return checked::mul(checked::add(third_row ? 0 : 1, mla_rows(m)), m.arch.hidden_size);
}

// build_moe_ffn (llama-graph.cpp at 0ad4a86) makes gate and up ([n_ff, n_used, n_tokens] each,
// or one gate_up tensor of twice that), then the activation (GLU: a fresh tensor, so gate, up
// and it are alive together: layer_floats' three FFN widths), then ffn_moe_down
// ([n_embd, n_used, n_tokens]) while the activation is still its source. ggml-alloc frees gate
// and up before allocating down, so down reuses their block when it fits
// (moe_down_fits_freed); otherwise no free block holds it and it goes past the activation, on
// top of the three widths. Qwen3-30B-A3B (n_embd 2048, 8 experts of 768) at ubatch 512 and
// 4096 cells with llama-server's outputs, read off the pinned libllama's CPU reservation with
// tools/accuracy/galloc_replay.py --trace: gate at 24.01 MiB, up at 36.01, the activation at
// 48.01 (12 MiB each, 512 x 8 x 768 x 4 B), the freed gate and up a 24 MiB block, and down
// (512 x 8 x 2048 x 4 B = 32 MiB) at 60.01: the buffer's peak, 92.01 MiB, llama.cpp's figure.
std::uint64_t moe_down_floats(const Model& m) {
    if (!m.is_moe() || moe_down_fits_freed(m)) return 0;
    return checked::mul(m.arch.moe->experts_per_token, m.arch.hidden_size);
}

// The routed experts and the shared expert run one after the other (build_moe_ffn, then
// build_ffn on the same ffn_norm: llama4.cpp:219-238, qwen35moe.cpp, minimax-m3.cpp alike), so
// their widths are never alive together; the layer peaks at the larger of:
// - the routed phase: gate, up and the GLU's fresh output (3 widths of n_used x n_ff a token),
//   or with two-matrix experts up alone, which relu and sqr run on in place
//   (llama-graph.cpp:2291-2299, Nemotron-3-Nano's relu^2), plus the down products where they
//   land above (moe_down_floats; with two-matrix experts always: the activation they read is
//   up's own block, freed only after them);
// - the shared phase: the routed down products' freed block (n_used x n_embd, with
//   `routed_down`) under the routed sum, and the shared expert's widths above it;
// - a dense FFN layer's 3 widths, where the model has dense layers (moe_layers < layers).
// Read with tools/accuracy/galloc_replay.py on the pinned libllama's CPU reservations under
// llama-server's outputs (ubatch 512, 32768 cells): Llama 4 Scout (n_embd 5120, 1 expert of
// 8192, shared 8192) peaks at the shared expert's GLU, inp_embd, ffn_norm, ffn_inp, the freed
// routed down (10 MiB), the routed sum and 3 x 16 MiB over the 40.5 MiB of masks = 138.62 MiB;
// Nemotron-3-Nano (n_embd 2688, 6 experts of 1856, relu^2) at its first routed down, 6 x 1856
// + 6 x 2688 floats a token (21.75 + 31.5 MiB) above its rows.
std::uint64_t moe_ffn_floats(const Model& m, bool routed_down) {
    const MoE& e = *m.arch.moe;
    const std::uint64_t widths = e.gated ? 3 : 1;
    const std::uint64_t routed = checked::add(
        checked::mul(widths, checked::mul(e.experts_per_token, e.expert_intermediate_size)),
        routed_down ? moe_down_floats(m) : 0);
    // the dense FFN layers between or before the MoE ones (a DeepSeek-style dense lead, Llama 4
    // Maverick's every other layer): gate, up and the GLU of their own width
    const bool dense_layers = e.moe_layers > 0 && e.moe_layers < m.arch.layers;
    const std::uint64_t dense = dense_layers ? checked::mul(3, m.arch.intermediate_size) : 0;
    if (!has_shared_expert(e)) return std::max(routed, dense);
    const std::uint64_t shared =
        checked::add(routed_down ? checked::mul(e.experts_per_token, m.arch.hidden_size) : 0,
                     checked::mul(widths, e.shared_expert_intermediate_size));
    return std::max({routed, shared, dense});
}

}  // namespace canitrun
