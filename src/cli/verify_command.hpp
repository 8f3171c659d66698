#pragma once
// `canitrun verify FILE`: a llama.cpp log's buffers beside canitrun's estimate, or llama-bench's
// measured speeds beside canitrun's prediction.

#include <string>

#include "canitrun/database.hpp"
#include "command_result.hpp"

namespace canitrun::cli {

// `gpu_spec`: --gpu, the GPUs a llama-bench run used (empty: from its gpu_info).
// Every format but --quiet: the comparison is its table.
// `model_id` / `quant` (verify --model, --quant): the model and quantization of an excerpt
// whose metadata and file type lines are missing; empty / null: the log's own.
Result<CommandResult> run_verify(const Database& db, const std::string& log_path,
                                 const std::string& gpu_spec, const std::string& model_id = "",
                                 const Quant* quant = nullptr);

}  // namespace canitrun::cli
