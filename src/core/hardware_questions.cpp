#include "canitrun/hardware_questions.hpp"

#include <algorithm>

#include "canitrun/fit.hpp"
#include "canitrun/hardware_report.hpp"

namespace canitrun {
namespace {

bool hardware_runs(const Hardware& hardware, const Quant& quant) {
    for (const auto& d : hardware.gpus) {
        if (d.gpu != nullptr && !gpu_runs_quant(*d.gpu, quant)) return false;
    }
    return true;
}

std::uint64_t active_params(const Model& model) {
    return model.params_active != 0 ? model.params_active : model.params_total;
}

Result<bool> fits_natively(const Model& model, const Quant& quant, const Hardware& hardware,
                           const EstimateOptions& options) {
    auto parts = model_parts(model, quant, options);
    if (!parts) return std::unexpected(parts.error());
    auto p = place(*parts, hardware, {});
    if (!p) return std::unexpected(p.error());
    return p->fits();
}

}  // namespace

Result<HardwareAnswer> answer_for(const Model& model, const Quant& quant, const Hardware& hardware,
                                  const EstimateOptions& options,
                                  const PlacementOptions& placement) {
    auto parts = model_parts(model, quant, options);
    if (!parts) return std::unexpected(parts.error());
    auto plan = plan_placement(*parts, hardware, placement);
    if (!plan) return std::unexpected(plan.error());
    if (!hardware_runs(hardware, quant)) plan->kind = PlanKind::none;
    HardwareAnswer a{&quant, options, *plan, {}};
    a.speed = estimate_speed(plan->placement, hardware, active_params(model));
    return a;
}

std::uint64_t longest_supported_context(const Model& model) {
    return std::max(model.context_native, model.context_extended);
}

Result<std::optional<std::uint64_t>> max_native_context(const Model& model, const Quant& quant,
                                                        const Hardware& hardware,
                                                        const EstimateOptions& options) {
    if (!hardware_runs(hardware, quant)) return std::optional<std::uint64_t>{};
    // Binary search over multiples of 256: fits(lo * 256) holds, fits(hi * 256) does not.
    EstimateOptions o = options;
    const std::uint64_t longest = longest_supported_context(model) / kContextStep;
    std::uint64_t lo = 0, hi = longest + 1;
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        o.context = mid * kContextStep;
        auto fits = fits_natively(model, quant, hardware, o);
        if (!fits) return std::unexpected(fits.error());
        (*fits ? lo : hi) = mid;
    }
    if (lo == 0) return std::optional<std::uint64_t>{};
    return std::optional<std::uint64_t>{lo * kContextStep};
}

Result<std::optional<HardwareAnswer>> best_quant_for_hardware(
    const Model& model, const std::vector<const Quant*>& quants, const Hardware& hardware,
    const EstimateOptions& options) {
    std::optional<HardwareAnswer> native, offload;
    for (const Quant* q : quants) {
        auto a = answer_for(model, *q, hardware, options);
        if (!a) return std::unexpected(a.error());
        auto& slot = a->plan.kind == PlanKind::native ? native : offload;
        if (a->plan.kind == PlanKind::none) continue;
        if (!slot || q->quality_rank < slot->quant->quality_rank) slot = *a;
    }
    return native ? native : offload;
}

Result<std::vector<ModelFit>> models_that_fit(const Database& db, const Hardware& hardware,
                                              const EstimateOptions& options) {
    const std::vector<const Quant*> quants = llama_cpp_quants(db);
    std::vector<ModelFit> fits;
    for (const auto& model : db.models) {
        EstimateOptions o = options;
        o.context = std::min(o.context, longest_supported_context(model));
        auto best = best_quant_for_hardware(model, quants, hardware, o);
        if (!best) return std::unexpected(best.error());
        // Whole on the GPUs, or, on a machine without one, whole in RAM.
        if (!*best ||
            ((*best)->plan.kind != PlanKind::native && (*best)->plan.kind != PlanKind::cpu_only)) {
            continue;
        }
        auto longest = max_native_context(model, *(*best)->quant, hardware, o);
        if (!longest) return std::unexpected(longest.error());
        fits.push_back({&model, **best, longest->value_or(o.context)});
    }
    return fits;
}

Result<FitSort> parse_fit_sort(const std::string& text) {
    if (text == "params") return FitSort::params;
    if (text == "speed") return FitSort::speed;
    if (text == "context") return FitSort::context;
    if (text == "name") return FitSort::name;
    return fail(ErrorKind::bad_input, "unknown sort order '" + text + "'",
                "use one of: params, speed, context, name");
}

void sort_model_fits(std::vector<ModelFit>& fits, FitSort order) {
    const auto by = [order](const ModelFit& a, const ModelFit& b) {
        switch (order) {
            case FitSort::params:
                if (a.model->params_total != b.model->params_total) {
                    return a.model->params_total > b.model->params_total;
                }
                break;
            case FitSort::speed:
                if (a.answer.speed.decode_tokens_per_s != b.answer.speed.decode_tokens_per_s) {
                    return a.answer.speed.decode_tokens_per_s > b.answer.speed.decode_tokens_per_s;
                }
                break;
            case FitSort::context:
                if (a.max_context != b.max_context) return a.max_context > b.max_context;
                break;
            case FitSort::name:
                break;
        }
        return a.model->id < b.model->id;
    };
    std::stable_sort(fits.begin(), fits.end(), by);
}

}  // namespace canitrun
