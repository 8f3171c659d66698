#pragma once
// What ggml-cuda's fusions keep alive in a CUDA (or ROCm: ggml-hip builds the same source) GPU's
// compute buffer beyond the graph the other backends allocate. Private to src/core/engines.

#include <cstdint>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

// Floats per output the MoE weighted-reduction fusion adds under the logits (0 where it does
// not match the graph, or the allocator puts the sum low anyway): cuda_fusion.cpp says why.
std::uint64_t fused_moe_sum_floats(const Model& m);

struct CacheSetup;
// Those floats in f32 for the outputs the graph is reserved for (RuntimeBuffers::fused_moe_sum).
Result<Bytes> fused_moe_sum_of(const Model& model, const CacheSetup& setup);

}  // namespace canitrun
