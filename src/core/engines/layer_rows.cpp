#include "layer_rows.hpp"

#include <algorithm>

#include "canitrun/checked.hpp"

namespace canitrun {

// The n_embd rows under a layer's FFN (`embd_rows`, fitted), or where a layer's attention output
// (query heads x head_dim a token, f32) is wider than two rows, that output's freed block in
// place of two of them: the output projection is made while the attention output lives, so
// ffn_inp lands above it and ffn_norm in it (ggml-alloc's best fit). GLM-4.5-Air (96 x 128
// query, n_embd 4096) at ubatch 512 and 32768 cells under llama-server's outputs: inp_embd,
// the 24 MiB block with ffn_norm in it and ffn_inp above, 40 MiB under its experts' 3 x 22 and
// down's 64 over the 32 MiB mask = 202.01 MiB, llama.cpp's figure (galloc_replay.py --trace).
std::uint64_t attention_rows(const Model& m, std::uint64_t embd_rows) {
    const auto& a = m.arch;
    std::uint64_t query = 0;
    for (const auto& g : a.layer_groups) {
        if (g.kind != LayerKind::full && g.kind != LayerKind::sliding) continue;
        const AttentionDims d = attention_dims(m, g);
        query = std::max(query, checked::mul(d.heads, d.k_dim));
    }
    const std::uint64_t rows = checked::mul(embd_rows, a.hidden_size);
    if (embd_rows < 2) return rows;
    return std::max(rows, checked::add(checked::mul(embd_rows - 2, a.hidden_size), query));
}

// A dense model's widest FFN: Gemma 4 E2B's KV-sharing layers run a double-wide one
// (gemma4.cpp:99-100, n_ff(il)), whose gate, up and GELU set the layers' peak.
std::uint64_t widest_ffn_width(const Model& m) {
    return std::max(active_ffn_width(m), m.arch.shared_kv_intermediate_size);
}

// Gemma 4's per-layer inputs (gemma4.cpp:175-181): one f32 tensor of n_layer x
// per_layer_input_size a token, made before the first layer and read by every layer's slice
// (gemma4.cpp:368-375), so alive under every layer's peak. Gemma 4 E2B at ubatch 512 and
// 32768 cells (galloc_replay.py on the pinned libllama, llama-server's outputs): 35 x 256 x 4 B
// = 17.50 MiB a 512-token ubatch under the double-wide FFN's gate, up and GELU (3 x 24 MiB).
std::uint64_t per_layer_input_floats(const Model& m) {
    return checked::mul(m.arch.layers, m.arch.per_layer_input_size);
}

}  // namespace canitrun
