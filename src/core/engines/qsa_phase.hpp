#pragma once
// Qwen Sparse Attention's layer phase on llama.cpp's compute buffer (qwen4exp.cpp's
// build_qsa_top_k and build_attn_qsa), the layers' phase of a model with a QSA indexer where
// llamacpp_engine.cpp's attention phase asks. Private to src/core/engines.

#include <cstdint>

#include "cache_setup.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

// Bytes of the compute buffer at the first QSA layer's peak, the indexer's block scores
// expanded to every cell: 0 for a model without a QSA indexer (a full group with an indexer
// and a compress_ratio). `n_kv`: the cells a stream's mask spans.
std::uint64_t qsa_phase_bytes(const Model& m, const Geometry& g, std::uint64_t n_kv,
                              bool flash_attn);

}  // namespace canitrun
