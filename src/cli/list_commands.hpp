#pragma once
// `canitrun models`, `canitrun gpu-list`, `canitrun quants` and `canitrun gpus MODEL`.

#include <optional>
#include <ostream>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

struct ListFilter {
    std::string family;  // models: substring of the family
    std::string vendor;  // both: vendor, case-insensitive
    std::optional<std::uint64_t> min_vram_bytes;
    std::string since;  // models: released on or after this month or day ("2026-06")
};

// Each writes in the stream's format (style.hpp): table, json, csv, markdown or quiet (ids).
void write_models(std::ostream& out, const Database& db, const ListFilter& filter);
void write_gpu_list(std::ostream& out, const Database& db, const ListFilter& filter);
void write_quants(std::ostream& out, const Database& db);
void write_gpus_for_model(std::ostream& out, const ModelReport& report);

}  // namespace canitrun::cli
