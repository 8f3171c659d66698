#include "qsa_phase.hpp"

#include <algorithm>

#include "canitrun/checked.hpp"

namespace canitrun {

namespace {

constexpr std::uint64_t kF32 = 4;
constexpr std::uint64_t kF16 = 2;
constexpr std::uint64_t kI32 = 4;
constexpr std::uint64_t kI64 = 8;

// The QSA layers' group (a full group with an indexer that scores blocks); nullptr without.
const LayerGroup* qsa_group(const Model& m) {
    for (const auto& group : m.arch.layer_groups) {
        if (group.kind == LayerKind::full && group.index_head_dim > 0 && group.compress_ratio > 0) {
            return &group;
        }
    }
    return nullptr;
}

// The layer's rows under the indexer, f32 a token: inp_embd, the previous layer's output and
// the attention mixer's normed input (hc streams each), the hole the mixer's down product,
// gate and mixed stream leave (the normed query lands in it where it fits) and Qcur_full (the
// query and its gate where the attention is gated).
std::uint64_t qsa_layer_rows(const Model& m) {
    const auto& a = m.arch;
    const std::uint64_t streams = checked::mul(a.hyper_connections, a.hidden_size);
    const std::uint64_t q = checked::mul(a.attention.heads, a.attention.head_dim);
    const std::uint64_t mixer =
        checked::add(checked::add(a.hyper_connection_rank, streams), a.hidden_size);
    return checked::add(
        checked::add(a.hidden_size, checked::mul(2, streams)),
        checked::add(std::max(mixer, q), a.attention.output_gate ? checked::mul(2, q) : q));
}

}  // namespace

// qwen4exp.cpp at 0ad4a86 (read off the pinned libllama's CPU reservations with
// tools/accuracy/galloc_replay.py --trace; each figure below within 0.05 MiB of llama.cpp's):
// - build_layer_attn builds the indexer first (:788), but the graph computes it where
//   build_attn_qsa first reads top_k, after Q, K and V (:717-719): the layer's rows sit under it.
// - The inputs the QSA layers share (build_qsa_top_k, :580-592): cell_blk, blk_cells and
//   blk_pos (i32, per cell and stream) and the block bias, f32 n_blocks a token (n_blocks =
//   n_kv / compress_ratio, rounded up), beside the KQ mask (f16 with flash attention, f32
//   without).
// - build_attn_qsa's zero-filled f32 [1, width, tokens] (:746-747, width = min(n_kv, top_k +
//   ratio - 1), :682) is a leaf: ggml-alloc places every layer's before the first node, so all
//   of them are live at the first QSA layer.
// - The summed head scores (:650-660), [n_blocks, tokens] f32, and their permuted copy (:669)
//   leave a hole of two such under the expansion (the pooled keys and per-head scores fit in
//   it or are freed first); get_rows expands the copy to every cell, f32 n_kv a token, and
//   its permuted cont lies above it (:668-670); the mask's f32 cast (:674) takes get_rows'
//   place. Without flash attention build_attn_mha's KQ (:764; heads x n_kv f32) is computed
//   before the mask it reads, so it sits under them, and so do the transposed V's i64 indices.
// Qwen3.8-Flash-Next (2560 wide, 4 x 2560 streams through rank 320, 24 x 256 gated query,
// 12 QSA layers, blocks of 4, top 2048) at ubatch 512 with flash attention, 131072 cells:
// 4 x 512 x 48448 rows + 12 x 4 x 512 x 2051 + 512 x (2 x 131072 + 3 x 4 x 32768 + 8 x
// 131072) + 12 x 131072 B = 976.20 MiB (llama.cpp: 976.25); without it, at 32768 cells, 1921.07
// (1907.50: the peak moves to a later layer, whose freed leaves and holes hold part of it).
std::uint64_t qsa_phase_bytes(const Model& m, const Geometry& g, std::uint64_t n_kv,
                              bool flash_attn) {
    const LayerGroup* qsa = qsa_group(m);
    if (qsa == nullptr || n_kv == 0) return 0;
    const auto& att = m.arch.attention;
    const std::uint64_t ratio = qsa->compress_ratio;
    const std::uint64_t blocks = checked::add(n_kv, ratio - 1) / ratio;
    const std::uint64_t width = std::min(n_kv, checked::add(qsa->index_top_k, ratio - 1));
    const std::uint64_t zeros = checked::mul(checked::mul(qsa->count, width), kF32);
    // the mask, the block bias, the scores' hole of two, the expansion and its copy
    std::uint64_t per_token =
        checked::add(checked::mul(flash_attn ? kF16 : kF32, n_kv),
                     checked::add(checked::mul(3 * kF32, blocks), checked::mul(2 * kF32, n_kv)));
    per_token = checked::add(per_token, checked::add(zeros, checked::mul(kF32, qsa_layer_rows(m))));
    if (!flash_attn) {
        const std::uint64_t kq = checked::mul(checked::mul(kF32, att.heads), n_kv);
        const std::uint64_t v_idxs = checked::mul(checked::mul(kI64, att.kv_heads),
                                                  att.v_head_dim ? att.v_head_dim : att.head_dim);
        per_token = checked::add(per_token, checked::add(kq, v_idxs));
    }
    // cell_blk and blk_cells (ratio x blocks), i32, and blk_pos, 4 x blocks, per stream
    const std::uint64_t cells = checked::add(n_kv, checked::mul(checked::add(ratio, 4), blocks));
    const std::uint64_t inputs = checked::mul(checked::mul(kI32, cells), g.n_stream);
    return checked::add(checked::mul(g.ubatch, per_token), inputs);
}

}  // namespace canitrun
