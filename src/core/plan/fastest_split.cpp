#include "canitrun/fastest_split.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

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

// -ot with a chosen set of layers' experts on two GPUs (docs/METHOD.md, the search): with
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

// The first x in [lo, hi] at which a monotone predicate (false, then true) holds, hi + 1 where
// none: galloping from `hint` (the count in hand, which the answer is usually near), then
// bisection. A few placements where a bisection over the whole range takes its log.
template <typename Pred>
Result<std::uint64_t> first_true(std::uint64_t lo, std::uint64_t hi, std::uint64_t hint,
                                 Pred pred) {
    if (lo > hi) return lo;
    std::uint64_t no = lo, yes = hi + 1;  // false below `no`, true from `yes` on
    hint = std::clamp(hint, lo, hi);
    CANITRUN_TRY_ASSIGN(const bool at, pred(hint));
    for (std::uint64_t step = 1, x = hint;; step *= 2) {
        if (at) {
            yes = x;
            if (x == no) break;
            x = x - std::min(step, x - no);
        } else {
            no = x + 1;
            if (no >= yes) break;
            x = std::min(x + step, yes - 1);
        }
        CANITRUN_TRY_ASSIGN(const bool t, pred(x));
        if (t != at) {
            (t ? yes : no) = t ? x : x + 1;
            break;
        }
    }
    while (no < yes) {
        const std::uint64_t mid = no + (yes - no) / 2;
        CANITRUN_TRY_ASSIGN(const bool t, pred(mid));
        (t ? yes : no) = t ? mid : mid + 1;
    }
    return yes;
}

// A GPU's block of units [b, e) in a split of `units` over the GPUs, the first `c` of its layers
// without their experts: whether GPU `d` is over its capacity with it (what the other GPUs hold is
// not read).
struct BlockProbe {
    const ModelParts& parts;
    const Hardware& hardware;
    const PlacementOptions& given;
    std::uint64_t units = 0;

    // `others`: a layer outside the block whose experts are in RAM, for GPU 0's prompt copy of
    // the largest expert in RAM (placement.cpp's host_weight_copy); none past the layers.
    Result<bool> over(std::size_t d, std::uint64_t b, std::uint64_t e, std::uint64_t c,
                      std::uint64_t others) const {
        const std::uint64_t n = parts.layers.size();
        PlacementOptions o = given;
        o.tensor_split.assign(hardware.gpus.size(), 0);
        o.tensor_split[0] = b;
        o.tensor_split[d] += e - b;
        o.tensor_split.back() += units - e;
        for (std::uint64_t i = b; i < b + c && i < n; ++i) o.cpu_moe_set.push_back(i);
        if (others < n && (others < b || others >= b + c)) {
            o.cpu_moe_set.push_back(others);
            std::sort(o.cpu_moe_set.begin(), o.cpu_moe_set.end());
        }
        CANITRUN_TRY_ASSIGN(const auto p, place(parts, hardware, o));
        return !p.gpus[d].fits();
    }
};

// The blocks of a chosen set on three or more GPUs: per GPU its block's start, its expert-less
// layers (first in its block) and its whole units after them.
struct SetBlocks {
    std::vector<std::uint64_t> start, cut, whole;
};

// The most whole units GPU `d` (past the first) holds ending at `end`, from a guess; none where
// not even the last GPU's head fits.
Result<std::optional<std::uint64_t>> most_whole(const BlockProbe& probe, std::size_t d,
                                                std::uint64_t end, std::uint64_t guess) {
    const std::uint64_t n = probe.parts.layers.size();
    CANITRUN_TRY_ASSIGN(const auto over, first_true(0, end, guess + 1, [&](std::uint64_t w) {
                            return probe.over(d, end - w, end, 0, n);
                        }));
    const bool last = d + 1 == probe.hardware.gpus.size();
    if (over == 0 || (last && over == 1)) return std::optional<std::uint64_t>{};
    return std::optional<std::uint64_t>{over - 1};
}

// From the last GPU back, each GPU past the first holds the most whole units that fit at its
// block's end; GPU 0 holds the rest, `need` of them without their experts (--n-cpu-moe's count
// for that split). Then again from the back, each GPU past the first also takes, before its
// whole units, the most expert-less layers it still fits, `need` in all at most: each is one
// GPU 0 no longer holds, and its room then holds another layer's experts.
Result<std::optional<SetBlocks>> absorbed(const BlockProbe& probe, const Placement& best) {
    const std::uint64_t n = probe.parts.layers.size();
    const std::size_t gpus = probe.hardware.gpus.size();
    SetBlocks s{std::vector<std::uint64_t>(gpus, 0), std::vector<std::uint64_t>(gpus, 0),
                std::vector<std::uint64_t>(gpus, 0)};
    std::uint64_t end = n + 1;
    for (std::size_t d = gpus; d-- > 1;) {
        const Share& g = best.gpus[d];
        CANITRUN_TRY_ASSIGN(const auto w, most_whole(probe, d, end, g.layers + (g.output ? 1 : 0)));
        if (!w) return std::optional<SetBlocks>{};
        s.whole[d] = *w;
        end -= *w;
    }
    CANITRUN_TRY_ASSIGN(
        const auto need,
        first_true(0, std::min(end, n), best.cpu_moe_layers, [&](std::uint64_t c) -> Result<bool> {
            CANITRUN_TRY_ASSIGN(const bool o, probe.over(0, 0, end, c, n));
            return !o;
        }));
    std::uint64_t left = need;
    end = n + 1;
    for (std::size_t d = gpus; d-- > 1;) {
        CANITRUN_TRY_ASSIGN(const auto w, most_whole(probe, d, end, s.whole[d]));
        if (!w) return std::optional<SetBlocks>{};
        s.whole[d] = *w;
        const std::uint64_t room = std::min(end - *w, left);
        CANITRUN_TRY_ASSIGN(const auto past, first_true(0, room, 1, [&](std::uint64_t c) {
                                return probe.over(d, end - *w - c, end, c, n);
                            }));
        s.cut[d] = past - 1;
        left -= s.cut[d];
        s.start[d] = end - *w - s.cut[d];
        end = s.start[d];
    }
    // GPU 0's room may hold more whole units than the others left it: they take in fewer, from
    // GPU 1 on, and the blocks before a GPU that takes in fewer move up by as many.
    CANITRUN_TRY_ASSIGN(const auto over0, first_true(0, n - 1, end, [&](std::uint64_t w) {
                            return probe.over(0, 0, w, 0, n - 1);
                        }));
    std::uint64_t more = over0 > end + 1 ? over0 - 1 - end : 0;
    std::vector<std::uint64_t> fewer(gpus, 0);
    for (std::size_t d = 1; d < gpus; ++d) {
        fewer[d] = std::min(more, s.cut[d]);
        s.cut[d] -= fewer[d];
        more -= fewer[d];
    }
    std::uint64_t shift = 0;
    for (std::size_t d = gpus; d-- > 1;) {
        shift += fewer[d];
        s.start[d] += shift;
    }
    return std::optional<SetBlocks>{std::move(s)};
}

// -ot with a chosen set on three or more GPUs (docs/METHOD.md, the search). Whole layers set a
// GPU's fill to a layer's grain; a layer without its experts (attention, KV) is a far finer
// one, so the GPUs past the first take in expert-less layers (absorbed), and GPU 0 keeps the
// fewest of the rest without their experts. Fewer expert-less layers in all is fewer layers'
// experts in RAM. Some tens of placements, galloping from the counts of the plan in hand; the
// set is kept where it fits and is faster.
Result<Candidate> chosen_set_many(const Model& model, const Quant& quant, const ModelParts& parts,
                                  const Hardware& hardware, const PlanSettings& settings,
                                  const PlacementOptions& given, Candidate best) {
    const std::uint64_t n = parts.layers.size();
    const std::size_t gpus = hardware.gpus.size();
    const BlockProbe probe{parts, hardware, given, n + 1};
    CANITRUN_TRY_ASSIGN(const auto blocks, absorbed(probe, best.placement));
    if (!blocks) return best;
    PlacementOptions chosen = given;
    chosen.tensor_split.assign(gpus, 0);
    for (std::size_t d = 0; d < gpus; ++d) {
        const std::uint64_t stop = d + 1 < gpus ? blocks->start[d + 1] : n + 1;
        chosen.tensor_split[d] = stop - blocks->start[d];
        for (std::uint64_t i = 0; i < blocks->cut[d]; ++i) {
            chosen.cpu_moe_set.push_back(blocks->start[d] + i);
        }
    }
    // GPU 0's fewest expert-less layers, with the others' set as it is.
    const std::vector<std::uint64_t> rest = chosen.cpu_moe_set;
    const std::uint64_t own = std::min(blocks->start[1], n);
    const auto with_first = [&](std::uint64_t c) {
        PlacementOptions o = chosen;
        o.cpu_moe_set.clear();
        for (std::uint64_t i = 0; i < c; ++i) o.cpu_moe_set.push_back(i);
        o.cpu_moe_set.insert(o.cpu_moe_set.end(), rest.begin(), rest.end());
        return o;
    };
    CANITRUN_TRY_ASSIGN(
        const auto c0,
        first_true(0, own, best.placement.cpu_moe_layers, [&](std::uint64_t c) -> Result<bool> {
            CANITRUN_TRY_ASSIGN(const auto p, place(parts, hardware, with_first(c)));
            return p.gpus[0].fits();
        }));
    if (c0 > own) return best;
    chosen = with_first(c0);
    const auto& set = chosen.cpu_moe_set;
    // None, more than in hand, or a prefix (--n-cpu-moe's own, which the split search judged).
    if (set.empty() || set.size() > best.placement.cpu_moe_layers || set.back() + 1 == set.size())
        return best;
    CANITRUN_TRY_ASSIGN(auto p, place(parts, hardware, chosen));
    if (!p.fits()) return best;
    Candidate c = judged(model, quant, std::move(p), hardware, settings);
    return faster(c, best) ? c : best;
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
    if (gpus == 2 && found.kind == PlanKind::expert_offload) {
        CANITRUN_TRY_ASSIGN(best, chosen_set(model, quant, parts, hardware, settings, given, best));
    } else if (gpus > 2 && found.kind == PlanKind::expert_offload) {
        CANITRUN_TRY_ASSIGN(best,
                            chosen_set_many(model, quant, parts, hardware, settings, given, best));
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
