#pragma once
// `canitrun models`, `canitrun gpu-list`, `canitrun quants` and `canitrun gpus MODEL`.

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/listing.hpp"
#include "canitrun/report.hpp"
#include "command_result.hpp"

namespace canitrun::cli {

// Each offers every format: table, json, csv, markdown and quiet (the ids). The database must
// outlive the result.
CommandResult models_result(const Database& db, const ListFilter& filter);
CommandResult gpu_list_result(const Database& db, const ListFilter& filter);
CommandResult quants_result(const Database& db);
CommandResult gpus_result(const std::shared_ptr<const ModelReport>& report);

}  // namespace canitrun::cli
