#pragma once
// The weights of a GGUF file, from its tensor infos (private to src/core/files): bytes,
// parameters, the quantization mix, and the parameters a token reads.

#include <vector>

#include "canitrun/gguf.hpp"
#include "canitrun/gguf_model.hpp"

namespace canitrun {

// Weights, parameters and the quantization mix, over every part; needs out.model's MoE.
Result<void> read_gguf_weights(const std::vector<GgufFile>& parts, GgufModel& out);

}  // namespace canitrun
