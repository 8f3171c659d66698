// plan_placement: the offload search over -ngl and --n-cpu-moe when neither is given,
// native_placement, the whole model on the GPUs, and the uneven split over several GPUs; all on
// top of place(), which sizes one placement (placement.cpp).

#include <algorithm>
#include <array>
#include <cmath>

#include "canitrun/placement.hpp"

namespace canitrun {

namespace {

// Every layer and the output head on the GPUs: no -ngl, no --n-cpu-moe.
void every_unit(PlacementOptions& options) {
    options.gpu_layers = std::nullopt;
    options.cpu_moe_layers = std::nullopt;
}

// Whether native_placement may try an uneven split where the default one overfills a GPU:
// several discrete GPUs and no split given.
bool may_split_unevenly(const Hardware& hardware, const PlacementOptions& options) {
    return hardware.gpus.size() >= 2 && !hardware.unified() && options.tensor_split.empty();
}

Result<Placement> filled_split(const ModelParts& parts, const Hardware& hardware,
                               PlacementOptions options);

// native_placement from the default placement already made (`all`, by the options' split or
// by memory): it, else an uneven split on several discrete GPUs with no split given; with the
// placement the verdict was made on.
Result<NativeTry> native_try_from(const ModelParts& parts, const Hardware& hardware,
                                  const PlacementOptions& options, Placement all) {
    if (all.fits() || !may_split_unevenly(hardware, options)) {
        const bool fits = all.fits();
        return NativeTry{std::move(all), fits};
    }
    PlacementOptions every = options;
    every_unit(every);
    CANITRUN_TRY_ASSIGN(auto split, filled_split(parts, hardware, std::move(every)));
    const bool fits = split.fits();
    split.split_found = fits;
    return NativeTry{std::move(split), fits};
}

Result<std::optional<Placement>> native_from(const ModelParts& parts, const Hardware& hardware,
                                             const PlacementOptions& options, Placement all) {
    CANITRUN_TRY_ASSIGN(auto t, native_try_from(parts, hardware, options, std::move(all)));
    if (!t.fits) return std::optional<Placement>{};
    return std::optional<Placement>{std::move(t.placement)};
}

// A lone discrete GPU: place() reads it only through its capacity. A GPU of no memory is
// refused by place(); a unified one lends the RAM what it leaves.
bool lone_discrete(const Hardware& hardware) {
    return hardware.gpus.size() == 1 && !hardware.unified() && hardware.gpus.front().memory > 0;
}

// Where the line through two probes' shares (units, bytes at most) reaches `capacity`: the
// most units it says fit, as a probe strictly inside (lo, hi).
std::uint64_t aimed(const std::array<std::uint64_t, 2>& k, const std::array<double, 2>& most,
                    double capacity, std::uint64_t lo, std::uint64_t hi) {
    const double slope =
        (most[1] - most[0]) / (static_cast<double>(k[1]) - static_cast<double>(k[0]));
    double at = static_cast<double>(k[1]) + (capacity - most[1]) / slope;
    at = std::clamp(std::floor(at), static_cast<double>(lo + 1), static_cast<double>(hi - 1));
    return static_cast<std::uint64_t>(at);
}

// The most of `left` units GPU d holds after the GPUs before it, the next GPU the rest (0
// always fits). Its share only grows with its units, so any probes that keep fits(lo) and not
// fits(hi) end at the one boundary: past two halvings each probe is aimed by the line through
// the last two shares (alike layers add alike bytes: the boundary in two or three probes where
// halving takes log2 of the units), a few at most, then halving again. A `hint` (0: none) is
// probed first, then its neighbour.
Result<std::uint64_t> most_units(const ModelParts& parts, const Hardware& hardware,
                                 PlacementOptions& options, const LayerRuns& runs, std::size_t d,
                                 std::uint64_t left, std::uint64_t hint) {
    std::uint64_t lo = 0, hi = left + 1;  // GPU d holds lo units (0 always), not hi
    std::array<std::uint64_t, 2> k{};
    std::array<double, 2> most{};
    double capacity = 0;  // GPU d's, from its share
    for (int probes = 0; hi - lo > 1; ++probes) {
        std::uint64_t mid = lo + (hi - lo) / 2;
        if (probes == 0 && hint > 0) {
            mid = std::clamp(hint, lo + 1, hi - 1);
        } else if (probes == 1 && hint > 0) {
            mid = lo == k[1] ? k[1] + 1 : k[1] - 1;  // its neighbour, on the side left open
        } else if (probes >= 2 && probes < 6 && most[0] != most[1]) {
            mid = aimed(k, most, capacity, lo, hi);
        }
        options.tensor_split[d] = mid;
        options.tensor_split[d + 1] = left - mid;
        CANITRUN_TRY_ASSIGN(auto p, place(parts, hardware, options, runs));
        (p.gpus[d].fits() ? lo : hi) = mid;
        k = {k[1], mid};
        most = {most[1], static_cast<double>(p.gpus[d].most())};
        capacity = static_cast<double>(p.gpus[d].capacity);
    }
    return lo;
}

// fitting_split's placement whether it fits or not (the last GPU takes what the others leave),
// on one GPU or more.
Result<Placement> filled_split(const ModelParts& parts, const Hardware& hardware,
                               PlacementOptions options) {
    const std::size_t gpus = hardware.gpus.size();
    const std::uint64_t n = parts.layers.size();
    std::uint64_t left = std::min(options.gpu_layers.value_or(n + 1), n + 1);
    const LayerRuns runs(parts);  // for the binary searches' placements
    options.tensor_split.assign(gpus, 0);
    options.tensor_split[0] = left;
    std::uint64_t hint = 0;  // none for GPU 0
    for (std::size_t d = 0; d + 1 < gpus; ++d) {
        CANITRUN_TRY_ASSIGN(const std::uint64_t lo,
                            most_units(parts, hardware, options, runs, d, left, hint));
        // The next GPU's first probe: this one's units by their memories (alike GPUs alike).
        const double ratio = static_cast<double>(hardware.gpus[d + 1].memory) /
                             std::max(1.0, static_cast<double>(hardware.gpus[d].memory));
        hint = static_cast<std::uint64_t>(std::floor(static_cast<double>(lo) * ratio));
        options.tensor_split[d] = lo;
        left -= lo;
        options.tensor_split[d + 1] = left;
    }
    return place(parts, hardware, options, runs);
}

}  // namespace

// The units the GPUs hold (options' -ngl, else every layer and the output head) by a split of
// unit counts: each GPU but the last takes the most units that fit it, in stack order, and the
// last the rest; --n-cpu-moe applies as given. A GPU's share only grows with its units, so if
// any contiguous split holds the units, this one does. Empty when none does (GPUs or RAM).
Result<std::optional<Placement>> fitting_split(const ModelParts& parts, const Hardware& hardware,
                                               PlacementOptions options) {
    if (hardware.gpus.empty()) return std::optional<Placement>{};
    CANITRUN_TRY_ASSIGN(auto p, filled_split(parts, hardware, std::move(options)));
    if (!p.fits()) return std::optional<Placement>{};
    p.split_found = true;
    return std::optional<Placement>{std::move(p)};
}

Result<std::optional<Placement>> uneven_split(const ModelParts& parts, const Hardware& hardware,
                                              PlacementOptions options) {
    every_unit(options);
    return fitting_split(parts, hardware, std::move(options));
}

bool PlacementMemo::Slot::holds(const Hardware& hardware, const PlacementOptions& options) const {
    return ram_ == hardware.ram && options_ == options;
}

Result<const Placement*> PlacementMemo::Slot::place(const ModelParts& parts,
                                                    const Hardware& hardware,
                                                    const PlacementOptions& options) {
    Kept* kept = nullptr;
    for (Kept& k : kept_) {
        if (k.gpu_layers == options.gpu_layers && k.cpu_moe_layers == options.cpu_moe_layers) {
            kept = &k;
            break;
        }
    }
    if (kept == nullptr) {
        // An error is not kept, so it comes back where it came before.
        CANITRUN_TRY_ASSIGN(auto p, canitrun::place(parts, hardware, options));
        kept = &kept_.emplace_back(Kept{options.gpu_layers, options.cpu_moe_layers, std::move(p)});
    }
    if (lone_) {
        kept->placement.gpus.front().capacity =
            gpu_capacity(hardware.gpus.front().memory, options.margin);
    }
    return &kept->placement;
}

PlacementMemo::Slot* PlacementMemo::slot(const Hardware& hardware,
                                         const PlacementOptions& options) {
    // A slot's placements differ by -ngl and --n-cpu-moe: options that give them (or -ot's
    // chosen set) have none.
    if (!lone_discrete(hardware) || options.gpu_layers || options.cpu_moe_layers ||
        !options.cpu_moe_set.empty()) {
        return nullptr;
    }
    for (Slot& s : slots_) {
        if (s.holds(hardware, options)) return &s;
    }
    return &slots_.emplace_back(hardware.ram, options);
}

Result<NativeTry> try_native(const ModelParts& parts, const Hardware& hardware,
                             PlacementOptions options) {
    every_unit(options);
    CANITRUN_TRY_ASSIGN(auto p, place(parts, hardware, options));
    return native_try_from(parts, hardware, options, std::move(p));
}

Result<std::optional<Placement>> native_placement(const ModelParts& parts, const Hardware& hardware,
                                                  PlacementOptions options) {
    CANITRUN_TRY_ASSIGN(auto t, try_native(parts, hardware, std::move(options)));
    if (!t.fits) return std::optional<Placement>{};
    return std::optional<Placement>{std::move(t.placement)};
}

Result<std::optional<Placement>> native_placement(PlacementMemo& memo, const Hardware& hardware,
                                                  PlacementOptions options) {
    every_unit(options);
    PlacementMemo::Slot* slot = memo.slot(hardware, options);
    if (slot == nullptr) return native_placement(memo.parts(), hardware, std::move(options));
    CANITRUN_TRY_ASSIGN(const Placement* p, slot->place(memo.parts(), hardware, options));
    return native_from(memo.parts(), hardware, options, *p);
}

namespace {

bool gpus_fit(const Placement& p) {
    for (const auto& g : p.gpus) {
        if (!g.fits()) return false;
    }
    return true;
}

// plan_placement's searches over offload, for the options' hardware with no -ngl or
// --n-cpu-moe given. On one GPU the GPU's share only shrinks as experts or layers move to RAM,
// and RAM's only grows, so the first split the GPU holds is the answer if RAM holds it, and
// none is otherwise: a binary search finds what the step-by-step search finds. With several
// GPUs the proportional split moves units between them, so every step is tried.
struct OffloadSearch {
    const ModelParts& parts;
    const Hardware& hardware;
    const PlacementOptions& options;
    // The options each step places with: one copy for the search rather than one a step.
    mutable PlacementOptions scratch;
    // Where the placements are kept: a memo's, or the search's own.
    PlacementMemo::Slot& slot;

    std::uint64_t layers() const { return parts.layers.size(); }
    bool one_gpu() const { return hardware.gpus.size() == 1; }

    Result<const Placement*> with(std::optional<std::uint64_t> ngl,
                                  std::optional<std::uint64_t> cpu_moe) const {
        scratch.gpu_layers = ngl;
        scratch.cpu_moe_layers = cpu_moe;
        return slot.place(parts, hardware, scratch);
    }

    // One step: the split by memory (or the user's), else, on several GPUs with no split
    // given, the split that fills each GPU in turn (fitting_split). The first step that fits
    // keeps the fewest experts or layers in RAM, which the speed model always prefers: a byte
    // read from RAM is slower than one read from any GPU.
    Result<std::optional<Placement>> step(std::optional<std::uint64_t> ngl,
                                          std::optional<std::uint64_t> cpu_moe) const {
        CANITRUN_TRY_ASSIGN(const Placement* p, with(ngl, cpu_moe));
        if (p->fits()) return std::optional<Placement>{*p};
        if (one_gpu() || !options.tensor_split.empty()) return std::optional<Placement>{};
        PlacementOptions o = options;
        o.gpu_layers = ngl;
        o.cpu_moe_layers = cpu_moe;
        return fitting_split(parts, hardware, o);
    }

    // The fewest layers' routed experts in RAM.
    Result<std::optional<Placement>> fewest_experts() const {
        const std::uint64_t n = layers();
        if (one_gpu()) {
            std::uint64_t lo = 0, hi = n;  // the GPU does not hold lo experts' layers; holds hi
            CANITRUN_TRY_ASSIGN(const Placement* at_hi, with(std::nullopt, n));
            if (!gpus_fit(*at_hi)) lo = n;
            while (hi - lo > 1) {
                const std::uint64_t mid = lo + (hi - lo) / 2;
                CANITRUN_TRY_ASSIGN(const Placement* p, with(std::nullopt, mid));
                if (!gpus_fit(*p)) {
                    lo = mid;
                    continue;
                }
                hi = mid;
                at_hi = p;
            }
            // step(lo + 1) on one GPU: the placement the search made at hi = lo + 1, if it fits
            if (lo + 1 > n || !at_hi->fits()) return std::optional<Placement>{};
            return std::optional<Placement>{*at_hi};
        }
        for (std::uint64_t k = 1; k <= n; ++k) {
            CANITRUN_TRY_ASSIGN(auto p, step(std::nullopt, k));
            if (p || one_gpu()) return p;
        }
        return std::optional<Placement>{};
    }

    // The most layers on the GPUs, the first ones in RAM.
    Result<std::optional<Placement>> most_layers() const {
        if (one_gpu()) {
            std::uint64_t lo = 0, hi = layers() + 1;  // the GPU holds lo layers; not hi
            const Placement* at_lo = nullptr;
            while (hi - lo > 1) {
                const std::uint64_t mid = lo + (hi - lo) / 2;
                CANITRUN_TRY_ASSIGN(const Placement* p, with(mid, std::nullopt));
                if (!gpus_fit(*p)) {
                    hi = mid;
                    continue;
                }
                lo = mid;
                at_lo = p;
            }
            // step(lo) on one GPU: the placement the search made at lo, if it fits
            if (lo == 0 || !at_lo->fits()) return std::optional<Placement>{};
            return std::optional<Placement>{*at_lo};
        }
        for (std::uint64_t ngl = layers(); ngl >= 1; --ngl) {
            CANITRUN_TRY_ASSIGN(auto p, step(ngl, std::nullopt));
            if (p || one_gpu()) return p;
        }
        return std::optional<Placement>{};
    }
};

// plan_placement, the searches' placements kept in `slot` (a memo's for these parts, or the
// call's own).
Result<Plan> plan_in(const ModelParts& parts, const Hardware& hardware,
                     const PlacementOptions& options, PlacementMemo::Slot& slot) {
    const std::uint64_t n = parts.layers.size();
    if (options.gpu_layers || options.cpu_moe_layers) {
        CANITRUN_TRY_ASSIGN(auto p, place(parts, hardware, options));
        PlanKind kind = p.cpu_moe_layers > 0 ? PlanKind::expert_offload : PlanKind::layer_offload;
        if (p.gpu_layers == n + 1 && p.cpu_moe_layers == 0) kind = PlanKind::native;
        if (hardware.gpus.empty()) kind = PlanKind::cpu_only;
        return Plan{p.fits() ? kind : PlanKind::none, p};
    }
    const OffloadSearch search{parts, hardware, options, options, slot};
    CANITRUN_TRY_ASSIGN(const Placement* all, search.with(std::nullopt, std::nullopt));
    CANITRUN_TRY_ASSIGN(auto whole, native_from(parts, hardware, options, *all));
    if (whole) {
        return Plan{hardware.gpus.empty() ? PlanKind::cpu_only : PlanKind::native,
                    std::move(*whole)};
    }
    if (hardware.gpus.empty() || hardware.unified()) return Plan{PlanKind::none, *all};
    bool has_experts = false;
    for (const auto& l : parts.layers) has_experts = has_experts || l.routed_experts > 0;
    if (has_experts) {
        CANITRUN_TRY_ASSIGN(auto p, search.fewest_experts());
        if (p) return Plan{PlanKind::expert_offload, *p};
    }
    CANITRUN_TRY_ASSIGN(auto p, search.most_layers());
    if (p) return Plan{PlanKind::layer_offload, *p};
    return Plan{PlanKind::none, *all};
}

}  // namespace

Result<Plan> plan_placement(const ModelParts& parts, const Hardware& hardware,
                            const PlacementOptions& options) {
    PlacementMemo::Slot own;
    return plan_in(parts, hardware, options, own);
}

Result<Plan> plan_placement(PlacementMemo& memo, const Hardware& hardware,
                            const PlacementOptions& options) {
    PlacementMemo::Slot* kept = memo.slot(hardware, options);
    if (kept == nullptr) return plan_placement(memo.parts(), hardware, options);
    return plan_in(memo.parts(), hardware, options, *kept);
}

const char* plan_kind_name(PlanKind kind) {
    switch (kind) {
        case PlanKind::native:
            return "native";
        case PlanKind::expert_offload:
            return "expert_offload";
        case PlanKind::layer_offload:
            return "layer_offload";
        case PlanKind::cpu_only:
            return "cpu_only";
        case PlanKind::none:
            return "none";
    }
    return "none";
}

}  // namespace canitrun
