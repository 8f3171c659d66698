#pragma once
// Floats per ubatch token an MoE layer's routed experts keep beyond the rows the compute
// buffer's phases count, where ggml-alloc cannot put them in what the experts freed
// (llamacpp_engine.cpp's output phase reads them). Private to src/core/engines.

#include <cstdint>

#include "canitrun/model.hpp"

namespace canitrun {

// Whether build_moe_ffn's down products (n_used x n_embd a token) fit where the gate and up
// outputs were freed (2 expert widths a token, 1 for two-matrix experts): ggml-alloc puts a
// tensor in the first free block that holds it, else past the highest live one. An MoE model.
bool moe_down_fits_freed(const Model& m);

// Whether the MoE layers run a shared expert (after the routed ones, in every graph the layouts
// hold), which keeps ffn_norm, its input, alive past the routed experts.
bool has_shared_expert(const MoE& e);

// Under the last layer's output: the routed experts' sum above their outputs, or the one row a
// shared expert's kept input leaves and, in an MLA model, its ffn_inp (0 where neither;
// `third_row`: the phase holds one anyway).
std::uint64_t moe_sum_floats(const Model& m, bool third_row);

// In the layers' phase: the routed experts' down products (n_used x n_embd a token) where they
// do not fit the gate and up outputs they free, so they land above the layer's working set; 0
// where they fit, and for a dense model.
std::uint64_t moe_down_floats(const Model& m);

// In the layers' phase: the experts' floats a token at the layer's peak, the larger of the
// routed experts' (their widths, and moe_down_floats with `routed_down`) and the shared
// expert's (its widths above the routed down products' freed block). An MoE model.
std::uint64_t moe_ffn_floats(const Model& m, bool routed_down);

}  // namespace canitrun
