#include "canitrun/fastest_split.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "canitrun/chosen_set.hpp"
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

// The fewest k in [lo, hi] for which GPU `gpu` fits with --n-cpu-moe k and `o`'s split; hi + 1
// where none does. A GPU's memory only falls as more of its layers' experts go to RAM.
Result<std::uint64_t> fewest_fitting(const ModelParts& parts, const Hardware& hardware,
                                     PlacementOptions o, std::size_t gpu, std::uint64_t lo,
                                     std::uint64_t hi) {
    std::uint64_t bad = lo, good = hi + 1;  // answer in [bad, good]
    while (bad < good) {
        const std::uint64_t mid = bad + (good - bad) / 2;
        o.cpu_moe_layers = mid;
        CANITRUN_TRY_ASSIGN(const auto p, place(parts, hardware, o));
        if (p.gpus[gpu].fits()) {
            good = mid;
        } else {
            bad = mid + 1;
        }
    }
    return good;
}

// -ot with a chosen set of layers' experts on two GPUs where fastest_chosen_set claims nothing
// (the quick rule, DeepSeek Sparse Attention, a RAM too small for its set): with
// --n-cpu-moe the expert-less layers are GPU 0's, and GPU 1 holds only whole layers. A chosen
// set gives each GPU's run its own count at its start, the fewest that GPU fits with; the
// speed model reads alike layers alike, so for a count which layers does not matter. Per
// split, kept where it puts fewer layers' experts in RAM than `best` and is faster.
Result<Candidate> chosen_set(const Model& model, const Quant& quant, const ModelParts& parts,
                             const Hardware& hardware, const PlanSettings& settings,
                             const PlacementOptions& given, Candidate best) {
    const std::uint64_t n = parts.layers.size();
    const std::uint64_t most = best.placement.cpu_moe_layers;  // at least one fewer than this
    PlacementOptions o = given;
    for (std::uint64_t first = 1; first < n && most > 1; ++first) {
        o.tensor_split = {first, n + 1 - first};
        // GPU 0's count below its whole run (its whole run is --n-cpu-moe's), GPU 1's after it.
        CANITRUN_TRY_ASSIGN(const auto c0, fewest_fitting(parts, hardware, o, 0, 0, first));
        if (c0 >= first || c0 + 1 >= most) continue;
        // GPU 1's count keeps the total below `most`: at most most - 1 - c0.
        const std::uint64_t last = std::min(n, first + most - 1 - c0);
        CANITRUN_TRY_ASSIGN(const auto k1, fewest_fitting(parts, hardware, o, 1, first, last));
        if (k1 == first || k1 > last) continue;  // none, or a prefix: --n-cpu-moe's
        PlacementOptions chosen = o;
        chosen.cpu_moe_layers.reset();
        for (std::uint64_t i = 0; i < c0; ++i) chosen.cpu_moe_set.push_back(i);
        for (std::uint64_t i = first; i < k1; ++i) chosen.cpu_moe_set.push_back(i);
        CANITRUN_TRY_ASSIGN(auto p, place(parts, hardware, chosen));
        if (!p.fits()) continue;
        Candidate c = judged(model, quant, std::move(p), hardware, settings);
        if (faster(c, best)) best = std::move(c);
    }
    return best;
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
    // Experts in RAM on two or more GPUs: the chosen-set search's space holds every
    // --n-cpu-moe and split (chosen_set.hpp), so where it is exact nothing else is tried.
    bool exact = false;
    if (found.kind == PlanKind::expert_offload) {
        CANITRUN_TRY_ASSIGN(auto set,
                            fastest_chosen_set(model, quant, parts, hardware, settings, given));
        exact = set.exact;
        if (set.found) {
            Candidate c = judged(model, quant, std::move(*set.found), hardware, settings);
            if (faster(c, best)) best = std::move(c);
        }
    }
    for (std::uint64_t k = found.placement.cpu_moe_layers; k <= last_k && !exact; ++k) {
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
    if (gpus == 2 && found.kind == PlanKind::expert_offload && !exact) {
        CANITRUN_TRY_ASSIGN(best, chosen_set(model, quant, parts, hardware, settings, given, best));
    }
    if (best.placement.tensor_split != found.placement.tensor_split ||
        best.placement.cpu_moe_layers != found.placement.cpu_moe_layers ||
        !best.placement.cpu_moe_set.empty()) {
        best.placement.split_found = found.placement.split_found;
        best.placement.split_faster = true;
        found.placement = std::move(best.placement);
    }
    return found;
}

}  // namespace canitrun
