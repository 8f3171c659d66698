#pragma once
// `canitrun verify LOGFILE`: a llama.cpp log's buffers beside canitrun's estimate.

#include <string>

#include "canitrun/database.hpp"
#include "file_commands.hpp"

namespace canitrun::cli {

Result<CommandOutput> run_verify(const Database& db, const std::string& log_path, bool json);

}  // namespace canitrun::cli
