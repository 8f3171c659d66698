#pragma once
// Reading a database folder (`--data DIR`) from disk.

#include <string>

#include "canitrun/database.hpp"

namespace canitrun {

// Every *.json file below `dir`, keyed by its path relative to `dir`.
Result<DatabaseFiles> read_database_dir(const std::string& dir);

}  // namespace canitrun
