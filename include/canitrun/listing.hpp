#pragma once
// What `canitrun models` and `gpu-list` keep of the database: the filters' one rule, in the
// core, so the CLI, the web app and the static site list the same entries.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/database.hpp"

namespace canitrun {

struct ListFilter {
    std::string family;  // models: substring of the family, case-insensitive
    std::string vendor;  // models: substring of the vendor; GPUs: the vendor, case-insensitive
    std::optional<std::uint64_t> min_vram_bytes;  // GPUs: marketed memory at least this
    std::string since;  // models: released on or after this month or day ("2026-06")
};

// The models the filter keeps, in the database's order.
std::vector<const Model*> models_matching(const Database& db, const ListFilter& filter);

// The GPUs the filter keeps, smallest first (the order of every GPU list).
std::vector<const Gpu*> gpus_matching(const Database& db, const ListFilter& filter);

}  // namespace canitrun
