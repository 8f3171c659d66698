#pragma once
// MiniMax Sparse Attention's layer phase on llama.cpp's compute buffer (minimax-m3.cpp), the
// layers' phase of a model with an MSA indexer where llamacpp_engine.cpp's attention phase
// asks. Private to src/core/engines.

#include <cstdint>

#include "cache_setup.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

// Bytes of the compute buffer at an MSA layer's peak, with flash attention: 0 for a model
// without an MSA indexer, and where minimax-m3.cpp runs dense attention instead (several
// sequences in one unified stream). `n_kv`: the cells a stream's mask spans; `embd_rows`: the
// backend's n_embd rows (llamacpp_engine.cpp's kCpuEmbdRows / kGpuEmbdRows).
std::uint64_t msa_phase_bytes(const Model& m, const Geometry& g, std::uint64_t n_kv,
                              std::uint64_t embd_rows);

}  // namespace canitrun
