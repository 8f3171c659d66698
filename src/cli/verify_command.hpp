#pragma once
// `canitrun verify FILE`: a llama.cpp log's buffers beside canitrun's estimate, or llama-bench's
// measured speeds beside canitrun's prediction.

#include <string>

#include "canitrun/database.hpp"
#include "file_commands.hpp"

namespace canitrun::cli {

// `gpu_spec`: --gpu, the GPUs a llama-bench run used (empty: from its gpu_info).
Result<CommandOutput> run_verify(const Database& db, const std::string& log_path, bool json,
                                 const std::string& gpu_spec);

}  // namespace canitrun::cli
