#include "canitrun/listing.hpp"

#include <algorithm>

#include "canitrun/fit.hpp"
#include "canitrun/strings.hpp"

namespace canitrun {
namespace {

bool contains(const std::string& haystack, const std::string& needle) {
    return to_lower(haystack).find(to_lower(needle)) != std::string::npos;
}

bool model_matches(const Model& m, const ListFilter& f) {
    if (!f.family.empty() && !contains(m.family, f.family)) return false;
    // Dates compare as text: "2026-06-15" >= "2026-06"; an entry without a date is left out.
    if (!f.since.empty() && (m.released.empty() || m.released < f.since)) return false;
    return f.vendor.empty() || contains(m.vendor, f.vendor);
}

}  // namespace

std::vector<const Model*> models_matching(const Database& db, const ListFilter& filter) {
    std::vector<const Model*> models;
    for (const auto& m : db.models) {
        if (model_matches(m, filter)) models.push_back(&m);
    }
    return models;
}

std::vector<const Gpu*> gpus_matching(const Database& db, const ListFilter& f) {
    std::vector<const Gpu*> gpus;
    for (const auto& g : db.gpus) {
        if (!f.vendor.empty() && to_lower(g.vendor) != to_lower(f.vendor)) continue;
        if (f.min_vram_bytes && g.vram_gb * kGB < *f.min_vram_bytes) continue;
        gpus.push_back(&g);
    }
    std::sort(gpus.begin(), gpus.end(),
              [](const Gpu* a, const Gpu* b) { return smaller_gpu_first(*a, *b); });
    return gpus;
}

}  // namespace canitrun
