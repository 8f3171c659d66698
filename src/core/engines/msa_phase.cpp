#include "msa_phase.hpp"

#include <algorithm>

#include "canitrun/checked.hpp"

namespace canitrun {

namespace {

constexpr std::uint64_t kF32 = 4;
constexpr std::uint64_t kF16 = 2;

// The indexer's heads (one per KV head) of the MSA layers; 0 without them. QSA's indexer
// (compress_ratio, qwen4exp) scores blocks, not cells, in a graph of its own.
std::uint64_t msa_heads(const Model& m) {
    for (const auto& group : m.arch.layer_groups) {
        if (group.kind == LayerKind::full && group.index_head_dim > 0 &&
            group.compress_ratio == 0) {
            return group.index_heads;
        }
    }
    return 0;
}

}  // namespace

// minimax-m3.cpp at 0ad4a86 (read off the pinned libllama's CPU reservations with
// tools/accuracy/galloc_replay.py --trace, llama-server's outputs):
// - MSA runs only with flash attention and one stream per sequence (minimax-m3.cpp:234-235);
//   a unified cache with several sequences falls back to dense attention.
// - The f16 KQ mask (n_kv x ubatch) and its f32 copy msa_mf (minimax-m3.cpp:295, made at the
//   first MSA layer and read by every one) stay alive across the MSA layers.
// - Each stream in turn (minimax-m3.cpp:449-511, ubatch / streams tokens each) makes its block
//   mask over the cells, bmc (GET_ROWS, f32 n_kv x tokens x indexer heads) and its transposed
//   copy bmx: the layer's peak, the two together above everything else live.
// - Under them, either the f32 copy with the rows the layer keeps (inp_embd, the previous
//   layer's output and the query, and the freed attention output, ffn_inp and ffn_norm: n_embd
//   rows plus 2 x heads x head_dim), where the copy fits none of the layers' holes and lands
//   where the first MSA layer's block scores were; or, where it fits below (few cells), the
//   previous layer's output above that layer's expert gate and up products (2 x n_used x n_ff).
// MiniMax-M3 (6144 wide, 64 x 128 query, 4 indexer heads, 4 experts of 3072) at ubatch 512:
// 32768 cells 32 + 64 + 2 x 256 + 80 = 688 MiB (688.65 measured, the rest small inputs),
// 131072 cells 2512 (2513.02), ubatch 2048 2752 (2754.20); 4 streams of 8192 cells
// 8 + 16 + 2 x 16 + 80 = 136 (137.65). At 4096 cells the copy lies below the layer's holes
// and the previous layer's output above its expert products: 4 + 2 x 32 + 96 = 164, where
// llama.cpp reserved 172.54 (the copy's 8 MiB under them too; counting it would read 16 MiB
// high at 32768 cells, where the gate and up fit below the copy).
std::uint64_t msa_phase_bytes(const Model& m, const Geometry& g, std::uint64_t n_kv,
                              std::uint64_t embd_rows) {
    const std::uint64_t heads = msa_heads(m);
    if (heads == 0 || (g.n_seq > 1 && g.n_stream == 1)) return 0;
    const auto& a = m.arch;
    const std::uint64_t stream_tokens = g.ubatch / std::max<std::uint64_t>(g.n_stream, 1);
    // bmc and bmx of one stream, and the f16 mask of all of them
    const std::uint64_t scores =
        checked::add(checked::mul(checked::mul(2 * kF32, heads), checked::mul(n_kv, stream_tokens)),
                     checked::mul(checked::mul(kF16, n_kv), g.ubatch));
    const std::uint64_t rows = checked::mul(embd_rows, a.hidden_size);
    const std::uint64_t query = checked::mul(a.attention.heads, a.attention.head_dim);
    // the f32 copy high, over the rows and the query's two blocks
    const std::uint64_t copy_high = checked::add(
        checked::mul(kF32, n_kv), checked::mul(kF32, checked::add(rows, checked::mul(2, query))));
    // the previous layer's output over its experts' gate and up products
    std::uint64_t experts = 0;
    if (m.is_moe()) {
        experts = checked::mul(
            2, checked::mul(a.moe->experts_per_token, a.moe->expert_intermediate_size));
    }
    const std::uint64_t over_experts = checked::mul(kF32, checked::add(rows, experts));
    return checked::add(scores, checked::mul(g.ubatch, std::max(copy_high, over_experts)));
}

}  // namespace canitrun
