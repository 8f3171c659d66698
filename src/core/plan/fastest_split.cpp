#include "canitrun/fastest_split.hpp"

#include "canitrun/split_search.hpp"

namespace canitrun {
namespace {

struct Candidate {
    Placement placement;
    double decode = 0;
    double prefill = 0;
};

Candidate judged(const Model& model, const Quant& quant, Placement p, const Hardware& hardware,
                 const PlanSettings& settings) {
    const Speed s = estimate_speed(model, quant, p, hardware, settings.estimate.context,
                                   settings.ubatch, settings.n_seq);
    return {std::move(p), s.decode_tokens_per_s, s.prefill_tokens_per_s.value_or(0)};
}

bool faster(const Candidate& a, const Candidate& b) {
    if (a.decode != b.decode) return a.decode > b.decode;
    return a.prefill > b.prefill;
}

}  // namespace

Result<Plan> fastest_plan(const Model& model, const Quant& quant, const ModelParts& parts,
                          const Hardware& hardware, const PlanSettings& settings,
                          const PlacementOptions& given, Plan found) {
    const bool searchable = found.kind == PlanKind::native ||
                            found.kind == PlanKind::expert_offload ||
                            found.kind == PlanKind::layer_offload;
    const std::size_t gpus = hardware.gpus.size();
    if (!searchable || gpus < 2 || hardware.unified() || !given.tensor_split.empty() ||
        given.gpu_layers || given.cpu_moe_layers) {
        return found;
    }
    const std::uint64_t n = parts.layers.size();
    Candidate best = judged(model, quant, found.placement, hardware, settings);
    const std::uint64_t units = std::min<std::uint64_t>(found.placement.gpu_layers, n + 1);
    // More experts in RAM than the planner's fewest can only help by freeing a better split;
    // whole layers in RAM stay as found (the planner keeps the most on the GPUs).
    const std::uint64_t last_k = found.kind == PlanKind::expert_offload ? n : 0;
    // Two alike GPUs read at one speed: every split that uses both is as fast as the planner's
    // (which keeps the fewest experts in RAM), so only one GPU alone (no hand-over) can beat it.
    const GpuDevice& a = hardware.gpus[0];
    const GpuDevice& b = hardware.gpus[1];
    const bool alike = a.gpu == b.gpu && a.memory == b.memory &&
                       a.bandwidth_gbps == b.bandwidth_gbps && a.fp16_tflops == b.fp16_tflops;
    for (std::uint64_t k = found.placement.cpu_moe_layers; k <= last_k; ++k) {
        PlacementOptions o = given;
        if (found.kind == PlanKind::layer_offload) o.gpu_layers = units;
        if (found.kind == PlanKind::expert_offload) o.cpu_moe_layers = k;
        if (gpus > 2) {
            const double beat =
                best.decode > 0 ? 1 / best.decode : std::numeric_limits<double>::infinity();
            CANITRUN_TRY_ASSIGN(
                auto p, fastest_many_gpu_split(model, quant, parts, hardware, settings, o, beat));
            if (!p) continue;
            Candidate c = judged(model, quant, std::move(*p), hardware, settings);
            if (faster(c, best)) best = std::move(c);
            continue;
        }
        for (std::uint64_t first = alike ? units : 0; first <= units; ++first) {
            o.tensor_split = {first, units - first};
            CANITRUN_TRY_ASSIGN(auto p, place(parts, hardware, o));
            if (!p.fits()) continue;
            Candidate c = judged(model, quant, std::move(p), hardware, settings);
            if (faster(c, best)) best = std::move(c);
        }
    }
    if (best.placement.tensor_split != found.placement.tensor_split ||
        best.placement.cpu_moe_layers != found.placement.cpu_moe_layers) {
        best.placement.split_found = found.placement.split_found;
        best.placement.split_faster = true;
        found.placement = std::move(best.placement);
    }
    return found;
}

}  // namespace canitrun
