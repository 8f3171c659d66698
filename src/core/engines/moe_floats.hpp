#pragma once
// Floats per ubatch token an MoE layer's routed experts keep beyond the rows the compute
// buffer's phases count, where ggml-alloc cannot put them in what the experts freed
// (llamacpp_engine.cpp's output phase reads them). Private to src/core/engines.

#include <cstdint>

#include "canitrun/model.hpp"

namespace canitrun {

// Under the last layer's output: the routed experts' sum above their outputs, or the one row a
// shared expert's kept input leaves and, in an MLA model, its ffn_inp (0 where neither;
// `third_row`: the phase holds one anyway).
std::uint64_t moe_sum_floats(const Model& m, bool third_row);

}  // namespace canitrun
