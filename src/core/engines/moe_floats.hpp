#pragma once
// Floats per ubatch token an MoE layer's routed experts keep beyond the rows the compute
// buffer's phases count, where ggml-alloc cannot put them in what the experts freed
// (llamacpp_engine.cpp's layers' and output phases read them). Private to src/core/engines.

#include <cstdint>

#include "canitrun/model.hpp"

namespace canitrun {

// In a layer: the routed experts' down products above the layer's rows (0 where they fit).
std::uint64_t routed_down_floats(const Model& m);

// Under the last layer's output: the routed experts' sum above their outputs (0 where not).
std::uint64_t moe_sum_floats(const Model& m);

}  // namespace canitrun
