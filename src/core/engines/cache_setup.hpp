#pragma once
// A context's cache geometry and types, checked and parsed once (cache_setup), and the terms
// read from it. llamacpp_engine.hpp's llamacpp_*_bytes each make their own setup; a caller that
// asks for several terms of one context (llamacpp_parts_at_context) makes it once and asks
// these: made seven times a plan, the setup was 6 % of an uncached `canitrun serve` answer
// (bench/RESULTS.md). Private to src/core/engines.

#include <cstdint>
#include <vector>

#include "canitrun/error.hpp"
#include "canitrun/ggml_type.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

struct Geometry {
    std::uint64_t n_ctx_seq = 0;
    std::uint64_t n_stream = 1;  // KV streams: one per sequence, one with a unified cache
    std::uint64_t n_seq = 1;     // sequences: each keeps its own recurrent state
    std::uint64_t ubatch = 0;
    std::uint64_t outputs = 0;  // the outputs the graph is reserved for: at most the ubatch
};

struct CacheSetup {
    Geometry g;
    GgmlType tk;
    GgmlType tv;
    bool flash_attn = true;
    bool no_memory = false;     // llama_arch_keeps_no_memory
    bool outputs_last = false;  // llama_arch_picks_outputs_last (output_phase_of)
    bool routed_down = true;    // !LlamaCppOptions::f32_mask (attention_phase_bytes says why)
};

// llama_init_from_model's checks and llama-context.cpp's geometry. It reads no backend.
Result<CacheSetup> cache_setup(const Model& model, const LlamaCppOptions& o);

// From a setup made, what llamacpp_group_caches, llamacpp_compute_bytes (its backend from
// `options`), llamacpp_attention_phase_bytes, llamacpp_mask_copy_bytes,
// llamacpp_device_mask_bytes, llamacpp_host_compute_bytes and llamacpp_logits_batch_bytes give.
Result<std::vector<LayerCache>> group_caches_of(const Model& model, const CacheSetup& setup);
Result<Bytes> compute_of(const Model& model, const CacheSetup& setup,
                         const LlamaCppOptions& options);
Result<Bytes> attention_phase_of(const Model& model, const CacheSetup& setup);
Result<Bytes> mask_copy_of(const Model& model, const CacheSetup& setup);
Result<Bytes> device_mask_of(const Model& model, const CacheSetup& setup);
Result<Bytes> host_compute_of(const Model& model, const CacheSetup& setup,
                              const LlamaCppOptions& options);
Result<Bytes> logits_batch_of(const Model& model, const CacheSetup& setup);
// The CPU backend's output phase (compute_of on the CPU is the larger of it and the layers'),
// and one DeepSeek Sparse Attention layer's top-k leaf for a ubatch (0 without DSA).
Result<Bytes> output_phase_of(const Model& model, const CacheSetup& setup);
Result<Bytes> dsa_leaf_of(const Model& model, const CacheSetup& setup);

}  // namespace canitrun
