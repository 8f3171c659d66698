#pragma once
// `canitrun models`, `canitrun gpu-list`, `canitrun quants` and `canitrun gpus MODEL`.

#include <optional>
#include <ostream>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

struct ListFilter {
    std::string family;  // models: substring of the family or id
    std::string vendor;  // both: vendor, case-insensitive
    std::optional<std::uint64_t> min_vram_bytes;
};

void write_models(std::ostream& out, const Database& db, const ListFilter& filter, bool json);
void write_gpu_list(std::ostream& out, const Database& db, const ListFilter& filter, bool json);
void write_quants(std::ostream& out, const Database& db, bool json);
// --names: one id per line, nothing else (for shell completion and scripts).
void write_model_names(std::ostream& out, const Database& db, const ListFilter& filter);
void write_gpu_names(std::ostream& out, const Database& db, const ListFilter& filter);
void write_quant_names(std::ostream& out, const Database& db);

void write_gpus_for_model(std::ostream& out, const ModelReport& report, bool json);

}  // namespace canitrun::cli
