#include "canitrun/hardware_report.hpp"

namespace canitrun {

std::vector<const Quant*> llama_cpp_quants(const Database& db) {
    std::vector<const Quant*> out;
    for (const auto& q : db.quants) {
        if (q.format == "gguf") out.push_back(&q);
    }
    return out;
}

Result<HardwareReport> build_hardware_report(const Database& db, const Model& model,
                                             const Quant& quant, const PlanSettings& settings,
                                             const Hardware& hardware,
                                             const PlacementOptions& placement) {
    HardwareReport r;
    r.hardware = hardware;
    auto selected = answer_for(model, quant, hardware, settings, placement);
    if (!selected) return std::unexpected(selected.error());
    r.selected = *selected;
    auto best = best_quant_for_hardware(model, llama_cpp_quants(db), hardware, settings);
    if (!best) return std::unexpected(best.error());
    r.best = *best;
    auto longest = max_native_context(model, quant, hardware, settings);
    if (!longest) return std::unexpected(longest.error());
    r.max_context = *longest;
    return r;
}

}  // namespace canitrun
