#pragma once
// `canitrun models`, `canitrun gpu-list`, `canitrun quants` and `canitrun gpus MODEL`.

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/report.hpp"
#include "command_result.hpp"

namespace canitrun::cli {

struct ListFilter {
    std::string family;  // models: substring of the family
    std::string vendor;  // both: vendor, case-insensitive
    std::optional<std::uint64_t> min_vram_bytes;
    std::string since;  // models: released on or after this month or day ("2026-06")
};

// Each offers every format: table, json, csv, markdown and quiet (the ids). The database must
// outlive the result.
CommandResult models_result(const Database& db, const ListFilter& filter);
CommandResult gpu_list_result(const Database& db, const ListFilter& filter);
CommandResult quants_result(const Database& db);
CommandResult gpus_result(const std::shared_ptr<const ModelReport>& report);

}  // namespace canitrun::cli
