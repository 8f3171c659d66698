#pragma once
// The vLLM engine profile: weights at the checkpoint's dtype, a budget of
// gpu_memory_utilization x the GPU's memory, a reserve for activations and CUDA graphs, and the
// rest in KV pages of 16 tokens; reported as the longest context one sequence gets and how
// many sequences fit at the asked context. Pure: no I/O.

#include <cstdint>

#include "canitrun/error.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

struct VllmOptions {
    std::uint64_t context = kDefaultContext;        // --max-model-len
    Bytes gpu_memory = 0;                           // the GPU's real byte size
    std::uint64_t gpu_memory_utilization_pct = 90;  // --gpu-memory-utilization 0.9
    std::uint64_t block_size = 16;                  // tokens per KV page
    std::uint64_t max_num_batched_tokens = 8192;    // V1 scheduler default for online serving
};

struct VllmEstimate {
    Estimate estimate;             // weights, activation_reserve, runtime, kv_cache (the pool)
    Bytes budget = 0;              // utilization x GPU memory
    Bytes kv_pool = 0;             // what is left for KV pages (0 when the weights do not fit)
    Bytes page_bytes = 0;          // one 16-token page across all attention layers
    Bytes per_sequence_fixed = 0;  // recurrent state of linear / SSM layers
    std::uint64_t max_context_one_seq = 0;  // tokens one sequence can hold
    std::uint64_t max_sequences = 0;        // sequences that fit at options.context
};

// Bytes per weight of the checkpoint: BF16 unless the quantization is a checkpoint format
// (FP8, NVFP4, AWQ, GPTQ, FP16, FP32); GGUF quantizations are refused.
Result<VllmEstimate> estimate_vllm(const Model& model, const Quant& quant,
                                   const VllmOptions& options);

}  // namespace canitrun
