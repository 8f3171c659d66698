#include "canitrun/chosen_set.hpp"

#include <algorithm>
#include <limits>

#include "canitrun/speed.hpp"
#include "canitrun/split_search.hpp"
#include "placement_search.hpp"

namespace canitrun {
// Named apart from split_search.cpp's like-named helpers (the unity build joins the files).
namespace chosen {
namespace {

using Split = std::vector<std::uint64_t>;

// What a share holds of the layers' own bytes; the rest of what it holds at most is its fixed
// term (chosen_set.hpp).
Bytes held(const Share& s) {
    return checked::add(checked::add(s.weights, s.kv_cache), s.recurrent_state);
}
Bytes fixed(const Share& s) {
    return checked::sub(s.most(), held(s));
}

// Decode, then prefill seconds: what a placement costs by the speed model.
struct Cost {
    double decode = std::numeric_limits<double>::infinity();
    double prefill = std::numeric_limits<double>::infinity();
};
bool cheaper(const Cost& a, const Cost& b) {
    return a.decode < b.decode || (a.decode == b.decode && a.prefill < b.prefill);
}
Cost plus(const Cost& a, const Cost& b) {
    return {a.decode + b.decode, a.prefill + b.prefill};
}

using Search = PlacementSearch;

// One device's seconds for a work alone (every term of the speed model is linear in it):
// `scratch` holds no other work.
struct Rates {
    const Search& s;
    const SpeedModel& m;
    SpeedWork scratch;

    Cost gpu(std::size_t d, const DeviceWork& decode, const DeviceWork& prefill) {
        scratch.gpus[d] = decode;
        const double seconds = decode_seconds(scratch, s.hardware, m);
        scratch.gpus[d] = prefill;
        const double prompt =
            prefill_seconds(scratch, s.hardware, m, s.settings.ubatch).value_or(0);
        scratch.gpus[d] = DeviceWork{};
        return {seconds, prompt};
    }
    Cost ram(const DeviceWork& decode, const DeviceWork& prefill) {
        scratch.ram = decode;
        const double seconds = decode_seconds(scratch, s.hardware, m);
        scratch.ram = prefill;
        const double prompt =
            prefill_seconds(scratch, s.hardware, m, s.settings.ubatch).value_or(0);
        scratch.ram = DeviceWork{};
        return {seconds, prompt};
    }
};

// A kind of layer whose experts may go to RAM: alike in what that moves (chosen_set.hpp).
struct Kind {
    Bytes routed = 0, active = 0, largest = 0;
    std::vector<std::uint64_t> count;  // layers of this kind in [0, u), per u
    std::uint64_t first = 0;           // its first layer
    Bytes frees = 0;                   // a GPU's bytes one layer's experts free
    std::vector<Cost> adds;            // per GPU: the seconds one adds (the RAM's less the GPU's)
    // GPU 0's fixed term with this kind's largest tensor copied in: empty, holding layers
    // without the head, holding the head.
    Bytes empty0 = 0, layers0 = 0, head0 = 0;
};

// Each GPU's fixed term past the first (GPU 0's is its kind's): empty, holding layers without
// the head, with it.
struct Fixed {
    std::vector<Bytes> empty, layers, head;
};

struct Tables {
    std::vector<Bytes> bytes;               // per start b: the layers' bytes of [b, U), whole
    std::vector<std::vector<Cost>> suffix;  // per GPU, per start b: [b, U)'s seconds there
    std::vector<Kind> kinds;                // by largest tensor, ascending
    Fixed fixed;
    double hop = 0;
};

// Active routed bytes of a layer: the part of what a token reads that its experts are.
Bytes active_routed(const LayerPart& l) {
    return checked::sub(l.active_weights, l.weights - l.routed_experts);
}

std::vector<Kind> kinds_of(const ModelParts& parts) {
    std::vector<Kind> kinds;
    const std::uint64_t n = parts.layers.size();
    for (std::uint64_t i = 0; i < n; ++i) {
        const LayerPart& l = parts.layers[i];
        if (l.routed_experts == 0) continue;
        const Bytes active = active_routed(l);
        auto k = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& x) {
            return x.routed == l.routed_experts && x.active == active &&
                   x.largest == l.largest_expert_tensor;
        });
        if (k == kinds.end()) {
            kinds.push_back(Kind{l.routed_experts,
                                 active,
                                 l.largest_expert_tensor,
                                 std::vector<std::uint64_t>(n + 2, 0),
                                 i,
                                 0,
                                 {},
                                 0,
                                 0,
                                 0});
            k = kinds.end() - 1;
        }
        ++k->count[i + 1];
    }
    for (Kind& k : kinds) {
        for (std::uint64_t u = 1; u < k.count.size(); ++u) k.count[u] += k.count[u - 1];
    }
    std::stable_sort(kinds.begin(), kinds.end(),
                     [](const Kind& a, const Kind& b) { return a.largest < b.largest; });
    return kinds;
}

// U + 1 suffix placements on the last GPU, a few for the fixed terms, three per kind. False
// where the RAM holds nothing more than the whole layers' (no set can fit).
Result<bool> measure(const Search& s, Rates& r, Tables& t) {
    const std::size_t last = s.gpus - 1;
    t.suffix.assign(s.gpus, std::vector<Cost>(s.units + 1));
    std::optional<SpeedWork> all_decode, all_prefill;
    t.fixed.empty.assign(s.gpus, 0);
    t.fixed.layers.assign(s.gpus, 0);
    t.fixed.head.assign(s.gpus, 0);
    // The model's terms at each point, made once for every placement below.
    const SpeedBasis decode =
        speed_basis(s.model, s.quant, s.settings.estimate.context, kDecodePoint);
    const SpeedBasis prefill =
        speed_basis(s.model, s.quant, s.settings.estimate.context, kPrefillPoint);
    for (std::uint64_t b = 0; b <= s.units; ++b) {
        CANITRUN_TRY_ASSIGN(auto p, s.at(s.block(last, b, s.units), {}));
        if (!p.ram.fits()) return false;
        const SpeedWork d = speed_work(decode, p);
        const SpeedWork f = speed_work(prefill, p);
        if (b == 0) {
            // The model's own terms (its type's family, its experts) with no device's work.
            r.scratch = d;
            for (DeviceWork& w : r.scratch.gpus) w = DeviceWork{};
            r.scratch.ram = DeviceWork{};
        }
        t.bytes.push_back(held(p.gpus[last]));
        for (std::size_t g = 0; g < s.gpus; ++g) {
            t.suffix[g][b] = r.gpu(g, d.gpus[last], f.gpus[last]);
        }
        if (b == s.units) t.fixed.empty[last] = fixed(p.gpus[last]);
        if (b == 0) {
            t.hop = hand_over_seconds(d, r.m);
            t.fixed.head[last] = fixed(p.gpus[last]);
            for (std::size_t g = 1; g < last; ++g) t.fixed.empty[g] = fixed(p.gpus[g]);
            all_decode = d;
            all_prefill = f;
        }
    }
    for (std::size_t g = 1; g < last; ++g) {
        CANITRUN_TRY_ASSIGN(const auto first, s.at(s.block(g, 0, 1), {}));
        t.fixed.layers[g] = fixed(first.gpus[g]);
        CANITRUN_TRY_ASSIGN(const auto head, s.at(s.block(g, s.units - 1, s.units), {}));
        t.fixed.head[g] = fixed(head.gpus[g]);
    }
    // A kind's layer in the set, everything on the last GPU, against none in the set: what it
    // frees there and what it adds to the RAM's and the GPU's seconds.
    const Cost whole_ram = r.ram(all_decode->ram, all_prefill->ram);
    for (Kind& k : t.kinds) {
        CANITRUN_TRY_ASSIGN(const auto p, s.at(s.block(last, 0, s.units), {k.first}));
        k.frees = checked::sub(t.bytes[0], held(p.gpus[last]));
        const SpeedWork d = speed_work(decode, p);
        const SpeedWork f = speed_work(prefill, p);
        const Cost ram = r.ram(d.ram, f.ram);
        for (std::size_t g = 0; g < s.gpus; ++g) {
            const Cost cut = r.gpu(g, d.gpus[last], f.gpus[last]);
            k.adds.push_back(
                {ram.decode - whole_ram.decode + cut.decode - t.suffix[g][0].decode,
                 ram.prefill - whole_ram.prefill + cut.prefill - t.suffix[g][0].prefill});
        }
        k.empty0 = fixed(p.gpus[0]);
        CANITRUN_TRY_ASSIGN(const auto one, s.at(s.block(0, 0, 1), {k.first}));
        k.layers0 = fixed(one.gpus[0]);
        CANITRUN_TRY_ASSIGN(const auto all, s.at(s.block(0, 0, s.units), {k.first}));
        k.head0 = fixed(all.gpus[0]);
    }
    return true;
}

// The cheapest counts of the allowed kinds (the first `allowed`) in [b, e) that free `over`
// bytes: each kind but the last enumerated, the last its fewest. `counts` receives them.
struct Cover {
    const std::vector<Kind>& kinds;
    std::size_t allowed = 0;
    std::size_t gpu = 0;
    std::uint64_t b = 0, e = 0;

    Cost best(std::size_t q, Bytes over, std::vector<std::uint64_t>& counts) const {
        if (over == 0) {
            std::fill(counts.begin() + static_cast<std::ptrdiff_t>(q), counts.end(), 0);
            return {0, 0};
        }
        if (q == allowed) return {};
        const Kind& k = kinds[q];
        if (k.frees == 0) {  // frees nothing: never taken
            counts[q] = 0;
            return best(q + 1, over, counts);
        }
        const std::uint64_t have = k.count[e] - k.count[b];
        const Cost one = k.adds[gpu];
        if (q + 1 == allowed) {
            const std::uint64_t need = checked::add(over, k.frees - 1) / k.frees;
            if (need > have) return {};
            counts[q] = need;
            const auto x = static_cast<double>(need);
            return {x * one.decode, x * one.prefill};
        }
        Cost least;
        std::vector<std::uint64_t> trial = counts;
        for (std::uint64_t x = 0; x <= have; ++x) {
            const Bytes freed = checked::mul(x, k.frees);
            trial[q] = x;
            const Cost rest = best(q + 1, freed >= over ? 0 : over - freed, trial);
            const auto xs = static_cast<double>(x);
            const Cost c = plus({xs * one.decode, xs * one.prefill}, rest);
            if (cheaper(c, least)) {
                least = c;
                counts = trial;
            }
            if (freed >= over) break;  // more only adds seconds (each adds at least none)
        }
        return least;
    }
};

// The dynamic program of one pass (GPU 0's copy: the `allowed` kinds' largest).
struct Program {
    const Search& s;
    const Tables& t;
    std::size_t allowed = 0;

    Bytes fixed_of(std::size_t d, bool empty, bool head) const {
        if (d == 0) {
            const Kind& k = t.kinds[allowed - 1];
            return empty ? k.empty0 : head ? k.head0 : k.layers0;
        }
        return empty ? t.fixed.empty[d] : head ? t.fixed.head[d] : t.fixed.layers[d];
    }

    // GPU d holding [b, e) at its cheapest counts; infinite where none fits.
    Cost block(std::size_t d, std::uint64_t b, std::uint64_t e,
               std::vector<std::uint64_t>& counts) const {
        const Bytes capacity = s.hardware.gpus.empty() ? 0 : place_capacity(d);
        const Bytes holds =
            checked::add(checked::sub(t.bytes[b], t.bytes[e]), fixed_of(d, b == e, e == s.units));
        std::fill(counts.begin(), counts.end(), 0);
        if (b == e) return holds <= capacity ? Cost{0, 0} : Cost{};
        const Cost whole{t.suffix[d][b].decode - t.suffix[d][e].decode + t.hop,
                         t.suffix[d][b].prefill - t.suffix[d][e].prefill};
        if (holds <= capacity) return whole;
        const Cover cover{t.kinds, allowed, d, b, e};
        return plus(whole, cover.best(0, holds - capacity, counts));
    }

    Bytes place_capacity(std::size_t d) const {
        return gpu_capacity(s.hardware.gpus[d].memory, s.options.margin);
    }

    // The least cost and its split (block ends per GPU).
    std::pair<Cost, Split> run() const {
        const std::size_t g = s.gpus;
        const std::uint64_t u = s.units;
        std::vector<std::uint64_t> counts(allowed, 0);
        std::vector<std::vector<Cost>> cost(g, std::vector<Cost>(u + 1));
        std::vector<Split> from(g, Split(u + 1, 0));
        for (std::uint64_t e = 0; e <= u; ++e) cost[0][e] = block(0, 0, e, counts);
        for (std::size_t d = 1; d < g; ++d) {
            for (std::uint64_t e = d + 1 == g ? u : 0; e <= u; ++e) {
                for (std::uint64_t b = 0; b <= e; ++b) {
                    if (cost[d - 1][b].decode == std::numeric_limits<double>::infinity()) continue;
                    const Cost c = plus(cost[d - 1][b], block(d, b, e, counts));
                    if (cheaper(c, cost[d][e])) {
                        cost[d][e] = c;
                        from[d][e] = b;
                    }
                }
            }
        }
        Split ends(g, u);
        for (std::size_t d = g - 1; d > 0; --d) ends[d - 1] = from[d][ends[d]];
        return {cost[g - 1][u], ends};
    }
};

// The placement options of a split (block ends) with each block's cheapest counts: of each
// kind, its first layers in the block.
PlacementOptions options_of(const Program& p, const Split& ends) {
    PlacementOptions o = p.s.options;
    o.tensor_split.assign(p.s.gpus, 0);
    std::vector<std::uint64_t> counts(p.allowed, 0);
    std::uint64_t b = 0;
    for (std::size_t d = 0; d < p.s.gpus; ++d) {
        o.tensor_split[d] = ends[d] - b;
        p.block(d, b, ends[d], counts);
        for (std::size_t q = 0; q < p.allowed; ++q) {
            const Kind& k = p.t.kinds[q];
            std::uint64_t left = counts[q];
            for (std::uint64_t i = b; i < ends[d] && i < p.s.parts.layers.size() && left > 0; ++i) {
                if (k.count[i + 1] == k.count[i]) continue;  // not this kind
                o.cpu_moe_set.push_back(i);
                --left;
            }
        }
        b = ends[d];
    }
    std::sort(o.cpu_moe_set.begin(), o.cpu_moe_set.end());
    return o;
}

}  // namespace
}  // namespace chosen

Result<ChosenSetSearch> fastest_chosen_set(const Model& model, const Quant& quant,
                                           const ModelParts& parts, const Hardware& hardware,
                                           const PlanSettings& settings,
                                           const PlacementOptions& given) {
    const std::size_t gpus = hardware.gpus.size();
    if (gpus < 2 || hardware.unified() || hardware.ram_bandwidth_gbps <= 0 || !parts.buffers ||
        parts.overhead_percent != 0 || parts.buffers->dsa_leaf != 0) {
        return ChosenSetSearch{};
    }
    for (const GpuDevice& g : hardware.gpus) {
        if (g.bandwidth_gbps <= 0) return ChosenSetSearch{};
    }
    const std::uint64_t n = parts.layers.size();
    PlacementOptions o = given;  // every unit on the GPUs, no set, no split
    o.gpu_layers.reset();
    o.cpu_moe_layers.reset();
    o.cpu_moe_set.clear();
    const chosen::Search s{model, quant, parts, hardware, settings, o, n + 1, gpus};
    return catch_overflow(
        [&]() -> Result<ChosenSetSearch> {
            chosen::Tables t;
            t.kinds = chosen::kinds_of(parts);
            if (t.kinds.empty()) return ChosenSetSearch{};
            chosen::Rates r{s, fitted_speed_model(), SpeedWork{}};
            CANITRUN_TRY_ASSIGN(const bool ram_fits, chosen::measure(s, r, t));
            if (!ram_fits) return ChosenSetSearch{true, std::nullopt};
            chosen::Cost best;
            std::optional<PlacementOptions> set;
            for (std::size_t allowed = 1; allowed <= t.kinds.size(); ++allowed) {
                // One pass per distinct largest tensor: the last kind of the pass has it.
                if (allowed < t.kinds.size() &&
                    t.kinds[allowed].largest == t.kinds[allowed - 1].largest)
                    continue;
                const chosen::Program p{s, t, allowed};
                const auto [cost, ends] = p.run();
                if (chosen::cheaper(cost, best)) {
                    best = cost;
                    set = chosen::options_of(p, ends);
                }
            }
            if (!set) return ChosenSetSearch{true, std::nullopt};
            CANITRUN_TRY_ASSIGN(auto placed, place(parts, hardware, *set));
            // A RAM too small for the set, or a GPU the fixed terms misjudged: not claimed.
            if (!placed.fits()) return ChosenSetSearch{};
            return ChosenSetSearch{true, std::move(placed)};
        },
        [] { return overflow_error("the chosen-set search", "lower --ctx"); });
}

}  // namespace canitrun
