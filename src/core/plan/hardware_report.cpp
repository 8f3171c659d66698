#include "canitrun/hardware_report.hpp"

#include <algorithm>

namespace canitrun {

void add_serving(HardwareReport& r, const Model& model, const Quant& quant,
                 const PlanSettings& settings) {
    // The capacity search plans -sm layer splits; a row or tensor plan's users are not planned.
    if (r.selected.settings.rule != Rule::llamacpp || r.hardware.gpus.empty() ||
        r.selected.settings.split_mode != SplitMode::layer)
        return;
    PlanSettings one = r.selected.settings;
    one.n_seq = 1;
    one.estimate.context = sequence_context(settings);
    // A model the capacity search cannot plan (no layout) has no serving answer; the rest
    // of the report stands.
    if (auto cap = llamacpp_capacity(model, quant, r.hardware, one)) r.serving = std::move(*cap);
    if (settings.n_seq > 1 && r.selected.plan.kind != PlanKind::none) {
        r.users_speed = batched_decode(model, quant, r.selected.plan.placement, r.hardware,
                                       settings.estimate.context, settings.n_seq);
    }
}

Result<HardwareReport> build_hardware_report(const Database& db, const Model& model,
                                             const Quant& quant, const PlanSettings& settings,
                                             const Hardware& hardware,
                                             const PlacementOptions& placement) {
    HardwareReport r;
    r.hardware = hardware;
    CANITRUN_TRY_ASSIGN(auto selected, answer_for(model, quant, hardware, settings, placement));
    r.selected = selected;
    CANITRUN_TRY_ASSIGN(r.selected.tensor_option,
                        tensor_split_option(model, quant, hardware, placement, r.selected));
    CANITRUN_TRY_ASSIGN(
        auto choices, quant_choices_for_hardware(model, llama_cpp_quants(db), hardware, settings));
    r.best = std::move(choices.best);
    r.fastest = std::move(choices.fastest);
    if (r.best) {
        CANITRUN_TRY_ASSIGN(r.with_offload, better_with_offload(model, llama_cpp_quants(db),
                                                                hardware, settings, *r.best));
    }
    CANITRUN_TRY_ASSIGN(auto longest, max_native_context(model, quant, hardware, settings));
    r.max_context = longest;
    add_serving(r, model, quant, settings);
    return r;
}

}  // namespace canitrun
