#include "canitrun/split_search.hpp"

#include <cstring>
#include <limits>
#include <optional>

#include "canitrun/speed.hpp"
#include "placement_search.hpp"

namespace canitrun {

std::vector<std::uint64_t> block_split(std::size_t gpus, std::uint64_t units, std::size_t d,
                                       std::uint64_t b, std::uint64_t e) {
    std::vector<std::uint64_t> s(gpus, 0);
    s[0] += b;
    s[d] += e - b;
    s[gpus - 1] += units - e;
    return s;
}

namespace {

using Split = std::vector<std::uint64_t>;

// The work of a block [b, e) from the works of [b, U) and [e, U) (the first holds the second).
DeviceWork minus(const DeviceWork& a, const DeviceWork& b) {
    DeviceWork w;
    w.read_bytes = a.read_bytes - b.read_bytes;
    w.resident_bytes = a.resident_bytes - b.resident_bytes;
    w.dense_flops = a.dense_flops - b.dense_flops;
    w.attention_flops = a.attention_flops - b.attention_flops;
    w.masked_attention_flops = a.masked_attention_flops - b.masked_attention_flops;
    w.wide_head_attention_flops = a.wide_head_attention_flops - b.wide_head_attention_flops;
    w.expert_flops = a.expert_flops - b.expert_flops;
    w.layers = a.layers - b.layers;
    w.moe_layers = a.moe_layers - b.moe_layers;
    w.recurrent_layers = a.recurrent_layers - b.recurrent_layers;
    w.weight_count = a.weight_count - b.weight_count;
    w.expert_weights = a.expert_weights - b.expert_weights;
    w.expert_bytes = a.expert_bytes - b.expert_bytes;
    return w;
}

// A GPU's block ends that fit, per block start: the last end, or -1 when none does.
using Reach = std::vector<std::int64_t>;

using Search = PlacementSearch;

// Each GPU from `first` on takes the most units that fit it, in stack order, the GPUs before
// it none (fitting_split's fill, from any GPU); empty when the units do not fit so.
Result<std::optional<Placement>> fill_from(const Search& s, std::size_t first) {
    Split split(s.gpus, 0);
    std::uint64_t left = s.units;
    for (std::size_t d = first; d + 1 < s.gpus && left > 0; ++d) {
        split[d] = left;
        split[d + 1] = 0;
        CANITRUN_TRY_ASSIGN(auto all, s.at(split));
        if (all.gpus[d].fits()) {
            left = 0;
            break;
        }
        std::uint64_t lo = 0, hi = left;  // GPU d holds lo units (0 always), not hi
        while (hi - lo > 1) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            split[d] = mid;
            split[d + 1] = left - mid;
            CANITRUN_TRY_ASSIGN(auto p, s.at(split));
            (p.gpus[d].fits() ? lo : hi) = mid;
        }
        split[d] = lo;
        left -= lo;
    }
    // What is left goes to the last GPU (its entry may hold the search's last probe).
    if (left > 0) split[s.gpus - 1] = left;
    CANITRUN_TRY_ASSIGN(auto p, s.at(split));
    if (!p.fits()) return std::optional<Placement>{};
    return std::optional<Placement>{std::move(p)};
}

// Every GPU alike, nothing beside the model placed per GPU: a split's speed depends only on how
// many GPUs it uses (split_search.hpp says why the two fills find the fewest).
bool all_alike(const Hardware& h, const PlacementOptions& o) {
    if (!o.server.companions.empty()) return false;
    const GpuDevice& a = h.gpus.front();
    for (const GpuDevice& b : h.gpus) {
        if (a.gpu != b.gpu || a.memory != b.memory || a.bandwidth_gbps != b.bandwidth_gbps ||
            a.fp16_tflops != b.fp16_tflops || a.fp32_tflops != b.fp32_tflops ||
            a.int8_dot_tops != b.int8_dot_tops)
            return false;
    }
    return true;
}

bool faster(const Speed& a, const Speed& b) {
    if (a.decode_tokens_per_s != b.decode_tokens_per_s)
        return a.decode_tokens_per_s > b.decode_tokens_per_s;
    return a.prefill_tokens_per_s.value_or(0) > b.prefill_tokens_per_s.value_or(0);
}

Result<std::optional<Placement>> fewest_alike_gpus(const Search& s) {
    // What no split changes (weights, KV cache, recurrent state), read off every unit on GPU 0:
    // more than all GPUs but one can hold, and every split that fits uses every GPU, so each
    // reads as fast as the planner's own (which fits): nothing to find. This settles most of
    // `fit` on alike GPUs, which plans the best quality that fills them.
    Split all(s.gpus, 0);
    all[0] = s.units;
    CANITRUN_TRY_ASSIGN(const auto one, s.at(all));
    const Share& first = one.gpus.front();
    const Bytes fixed =
        checked::add(checked::add(first.weights, first.kv_cache), first.recurrent_state);
    if (fixed > checked::mul(s.gpus - 1, one.gpus.back().capacity)) {
        return std::optional<Placement>{};
    }
    if (one.fits()) return std::optional<Placement>{one};
    CANITRUN_TRY_ASSIGN(auto from_first, fill_from(s, 0));
    std::size_t used = 0;
    if (from_first) {
        for (const Share& g : from_first->gpus) used += g.layers > 0 || g.output ? 1 : 0;
    }
    if (used == 1) return from_first;
    CANITRUN_TRY_ASSIGN(auto from_second, fill_from(s, 1));
    if (!from_second) return from_first;
    if (!from_first || faster(s.speed_of(*from_second), s.speed_of(*from_first)))
        return from_second;
    return from_first;
}

// What every block of a split is judged and checked by (split_search.hpp): per start b, the
// work of [b, U) at the decode and the prefill points; whether GPU 0 holds [0, b) and the last
// GPU [b, U); whether each GPU holds an empty block; per middle GPU its Reach; and the works of
// the RAM, which no split changes.
struct Blocks {
    std::vector<DeviceWork> decode;
    std::vector<DeviceWork> prefill;
    std::vector<bool> last_fits;
    std::vector<bool> idle_fits;  // per GPU, holding no unit (every unit on the last GPU)
    std::vector<Reach> reach;     // per GPU but the last (GPU 0: its end from start 0 only)
    SpeedWork decode_work;        // the RAM's work; the GPUs' are set per split
    SpeedWork prefill_work;
};

// The suffix blocks: U + 1 placements, the first of them (every unit on the last GPU) made
// already: `whole`. False when the RAM does not hold its share (no split changes it).
Result<bool> suffixes(const Search& s, Blocks& t, const Placement& whole) {
    std::int64_t first_end = -1;
    for (const Share& g : whole.gpus) t.idle_fits.push_back(g.fits());
    // The model's terms at each point, made once for the U + 1 placements (speed_basis).
    const SpeedBasis decode =
        speed_basis(s.model, s.quant, s.settings.estimate.context, kDecodePoint);
    const SpeedBasis prefill =
        speed_basis(s.model, s.quant, s.settings.estimate.context, kPrefillPoint);
    t.decode.reserve(s.units + 1);
    t.prefill.reserve(s.units + 1);
    t.last_fits.reserve(s.units + 1);
    // One suffix block's placement into the tables; false where the RAM does not hold it. Only
    // the last GPU's work is kept, past the first (share_work).
    const auto take = [&](const Placement& p, std::uint64_t b) {
        if (!p.ram.fits()) return false;
        if (p.gpus.front().fits()) first_end = static_cast<std::int64_t>(b);
        t.last_fits.push_back(p.gpus.back().fits());
        if (b == 0) {
            t.decode_work = speed_work(decode, p);
            t.prefill_work = speed_work(prefill, p);
        }
        t.decode.push_back(share_work(decode, p, p.gpus.back()));
        t.prefill.push_back(share_work(prefill, p, p.gpus.back()));
        return true;
    };
    if (!take(whole, 0)) return false;
    for (std::uint64_t b = 1; b <= s.units; ++b) {
        CANITRUN_TRY_ASSIGN(const auto p, s.at(s.block(s.gpus - 1, b, s.units)));
        if (!take(p, b)) return false;
    }
    t.reach.assign(s.gpus - 1, Reach(s.units + 1, -1));
    t.reach[0][0] = first_end;  // GPU 0's share only grows with its block
    return true;
}

// A middle GPU's Reach by two pointers: the last end that fits never falls as the start rises
// (the block from a later start to the same end is part of the earlier one). Only the starts
// up to `last` are walked (the GPUs before it reach no later one); the rest stay -1.
Result<Reach> reach_of(const Search& s, const Blocks& t, std::size_t d, std::int64_t last) {
    Reach r(s.units + 1, -1);
    if (!t.idle_fits[d]) return r;
    std::uint64_t e = 0;
    for (std::uint64_t b = 0; static_cast<std::int64_t>(b) <= last; ++b) {
        e = std::max(e, b);
        while (e < s.units) {
            CANITRUN_TRY_ASSIGN(auto p, s.at(s.block(d, b, e + 1)));
            if (!p.gpus[d].fits()) break;
            ++e;
        }
        r[b] = static_cast<std::int64_t>(e);
    }
    return r;
}

// Each unit's own decode and prefill terms on each GPU, summed from unit 0: a GPU's terms are
// linear in its work (speed.cpp), so a block's are the difference of two sums, U x GPUs
// evaluations for every block. A GPU without a prefill figure counts no prefill seconds (the
// prefill only breaks ties between equal decodes). `ram`: the RAM's decode seconds; `floor`:
// per start, the decode seconds of the units from it on, each at the GPU that reads it fastest.
struct Terms {
    double ram = 0;
    std::vector<std::vector<double>> decode;  // per GPU, per end e: units [0, e)
    std::vector<std::vector<double>> prefill;
    std::vector<double> floor;
};

// A unit's works and its seconds on each GPU. Alike layers give the same works bit for bit,
// and the speed model is a function of them, so their seconds are read once (the speed model's
// per-GPU lookups were a third of a search's instructions).
struct UnitSeconds {
    DeviceWork decode, prefill;
    std::vector<double> seconds, prompt;  // per GPU
};

bool same_bits(const DeviceWork& a, const DeviceWork& b) {
    static_assert(sizeof(DeviceWork) == 16 * sizeof(double), "DeviceWork without padding");
    // Bits, not values, on purpose: a -0.0 or a NaN makes another unit, never a wrong reuse.
    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison): no padding, per the assert above
    return std::memcmp(&a, &b, sizeof(DeviceWork)) == 0;
}

const UnitSeconds& seconds_of(const Search& s, const SpeedModel& m, SpeedWork& w,
                              std::vector<UnitSeconds>& seen, const DeviceWork& decode,
                              const DeviceWork& prefill) {
    for (const UnitSeconds& x : seen) {
        if (same_bits(x.decode, decode) && same_bits(x.prefill, prefill)) return x;
    }
    UnitSeconds x{decode, prefill, std::vector<double>(s.gpus), std::vector<double>(s.gpus)};
    for (std::size_t d = 0; d < s.gpus; ++d) {
        w.gpus[d] = decode;
        x.seconds[d] = decode_seconds(w, s.hardware, m);
        w.gpus[d] = prefill;
        x.prompt[d] = prefill_seconds(w, s.hardware, m, s.settings.ubatch).value_or(0);
        w.gpus[d] = DeviceWork{};
    }
    if (seen.size() >= 8) seen.erase(seen.begin());  // a few kinds of layer: a short list
    seen.push_back(std::move(x));
    return seen.back();
}

Terms unit_terms(const Search& s, const Blocks& t, const SpeedModel& m) {
    Terms f;
    SpeedWork w = t.decode_work;
    for (DeviceWork& g : w.gpus) g = DeviceWork{};
    f.ram = decode_seconds(w, s.hardware, m);
    w.ram = DeviceWork{};
    f.decode.assign(s.gpus, std::vector<double>(s.units + 1, 0));
    f.prefill.assign(s.gpus, std::vector<double>(s.units + 1, 0));
    std::vector<double> fastest(s.units, std::numeric_limits<double>::infinity());
    std::vector<UnitSeconds> seen;
    seen.reserve(9);
    for (std::uint64_t u = 0; u < s.units; ++u) {
        const UnitSeconds& x = seconds_of(s, m, w, seen, minus(t.decode[u], t.decode[u + 1]),
                                          minus(t.prefill[u], t.prefill[u + 1]));
        for (std::size_t d = 0; d < s.gpus; ++d) {
            f.decode[d][u + 1] = f.decode[d][u] + x.seconds[d];
            f.prefill[d][u + 1] = f.prefill[d][u] + x.prompt[d];
            fastest[u] = std::min(fastest[u], x.seconds[d]);
        }
    }
    f.floor.assign(s.units + 1, 0);
    for (std::uint64_t u = s.units; u-- > 0;) f.floor[u] = f.floor[u + 1] + fastest[u];
    return f;
}

// A split's cost as the speed model sums it: decode seconds, then prefill seconds (the tie).
struct Cost {
    double decode = std::numeric_limits<double>::infinity();
    double prefill = std::numeric_limits<double>::infinity();
};

bool cheaper(const Cost& a, const Cost& b) {
    return a.decode < b.decode || (a.decode == b.decode && a.prefill < b.prefill);
}

// The fastest split by dynamic programming over the GPUs in stack order (split_search.hpp says
// why it is exact): cost[d][e] is the least cost of GPUs 0..d holding units [0, e), each block
// fitting, with its start in start[d][e]. A busy block costs its own decode terms and one
// hand-over (the first is taken back at the end), prefill its own terms; an empty block nothing.
struct Table {
    const Search& s;
    const Blocks& t;
    const Terms& terms;
    double hop = 0;
    std::vector<std::vector<Cost>> cost;
    std::vector<Split> start;

    Cost block(std::size_t d, std::uint64_t b, std::uint64_t e) const {
        if (b == e) return {0, 0};
        return {terms.decode[d][e] - terms.decode[d][b] + hop,
                terms.prefill[d][e] - terms.prefill[d][b]};
    }

    // GPU d (not the last) from each start the GPUs before it reach, to each end that fits.
    // Branch and bound: a state whose cost, less the hand-over taken back, plus the RAM's and the
    // floor of the units after it is above `beat` cannot win; that sum never falls as the end
    // rises (a unit costs its GPU at least its floor), so the first end past it ends the loop.
    void extend(std::size_t d, double beat) {
        for (std::uint64_t b = 0; b <= s.units; ++b) {
            const Cost before = d == 0 ? (b == 0 ? Cost{0, 0} : Cost{}) : cost[d - 1][b];
            if (before.decode == std::numeric_limits<double>::infinity()) continue;
            for (auto e = static_cast<std::int64_t>(b); e <= t.reach[d][b]; ++e) {
                const auto end = static_cast<std::uint64_t>(e);
                const Cost c = block(d, b, end);
                const Cost sum{before.decode + c.decode, before.prefill + c.prefill};
                if (terms.ram + sum.decode - hop + terms.floor[end] > beat * (1 + 1e-12)) break;
                if (cheaper(sum, cost[d][end])) {
                    cost[d][end] = sum;
                    start[d][end] = b;
                }
            }
            if (d == 0) break;  // GPU 0's block starts at unit 0
        }
    }

    // The last start from which GPU d may take a block: the last end GPUs 0..d-1 reach (-1 when
    // none, or for GPU 0 none but start 0).
    std::int64_t last_start(std::size_t d) const {
        if (d == 0) return 0;
        for (std::uint64_t b = s.units + 1; b-- > 0;) {
            if (cost[d - 1][b].decode != std::numeric_limits<double>::infinity())
                return static_cast<std::int64_t>(b);
        }
        return -1;
    }

    // The last GPU takes the rest; the fastest split, or empty when none beats `beat`.
    Split finish(double beat) {
        const std::size_t last = s.gpus - 1;
        Cost best{beat, std::numeric_limits<double>::infinity()};
        std::optional<std::uint64_t> best_start;
        for (std::uint64_t b = 0; b <= s.units; ++b) {
            const Cost& before = cost[last - 1][b];
            if (!t.last_fits[b] || before.decode == std::numeric_limits<double>::infinity())
                continue;
            const Cost c = block(last, b, s.units);
            // Every unit is busy work (a layer, or the output head), so some GPU is busy.
            Cost total{before.decode + c.decode + terms.ram - (s.units > 0 ? hop : 0),
                       before.prefill + c.prefill};
            if (total.decode > 0 && cheaper(total, best)) {
                best = total;
                best_start = b;
            }
        }
        if (!best_start) return {};
        Split split(s.gpus, 0);
        std::uint64_t e = s.units;
        std::uint64_t b = *best_start;
        split[last] = e - b;
        for (std::size_t d = last; d-- > 0;) {
            e = b;
            b = start[d][e];
            split[d] = e - b;
        }
        return split;
    }
};

Result<std::optional<Placement>> enumerate_splits(const Search& s, double beat_seconds,
                                                  const Placement& whole) {
    Blocks t;
    CANITRUN_TRY_ASSIGN(const bool ram_fits, suffixes(s, t, whole));
    if (!ram_fits) return std::optional<Placement>{};
    // No split here can beat the plan in hand: skip the search (most --n-cpu-moe steps past the
    // best, whose experts in RAM cost more than any split saves).
    const SpeedModel& m = fitted_speed_model();
    const Terms terms = unit_terms(s, t, m);
    if (terms.ram + terms.floor[0] > beat_seconds * (1 + 1e-12)) {
        return std::optional<Placement>{};
    }
    Table table{s,
                t,
                terms,
                hand_over_seconds(t.decode_work, m),
                std::vector<std::vector<Cost>>(s.gpus - 1, std::vector<Cost>(s.units + 1)),
                std::vector<Split>(s.gpus - 1, Split(s.units + 1, 0))};
    // Each middle GPU's Reach from the starts the GPUs before it reach, then its blocks.
    for (std::size_t d = 0; d + 1 < s.gpus; ++d) {
        if (d > 0) {
            CANITRUN_TRY_ASSIGN(t.reach[d], reach_of(s, t, d, table.last_start(d)));
        }
        table.extend(d, beat_seconds);
    }
    const Split best = table.finish(beat_seconds);
    if (best.empty()) return std::optional<Placement>{};
    CANITRUN_TRY_ASSIGN(auto p, s.at(best));
    if (!p.fits()) return std::optional<Placement>{};
    return std::optional<Placement>{std::move(p)};
}

}  // namespace

Result<std::optional<Placement>> fastest_many_gpu_split(
    const Model& model, const Quant& quant, const ModelParts& parts, const Hardware& hardware,
    const PlanSettings& settings, const PlacementOptions& options, double beat_decode_seconds) {
    const std::size_t gpus = hardware.gpus.size();
    if (gpus < 3 || hardware.unified()) {
        return std::optional<Placement>{};
    }
    for (const GpuDevice& g : hardware.gpus) {
        if (g.bandwidth_gbps <= 0) return std::optional<Placement>{};
    }
    const std::uint64_t n = parts.layers.size();
    const Search s{model,
                   quant,
                   parts,
                   hardware,
                   settings,
                   options,
                   std::min(options.gpu_layers.value_or(n + 1), n + 1),
                   gpus};
    if (all_alike(hardware, options)) return fewest_alike_gpus(s);
    // The RAM's own decode seconds, which no split changes, already above the plan in hand: one
    // placement settles it (the --n-cpu-moe steps well past the best).
    CANITRUN_TRY_ASSIGN(const auto any, s.at(s.block(gpus - 1, 0, s.units)));
    SpeedWork ram = speed_work(model, quant, any, settings.estimate.context, kDecodePoint);
    for (DeviceWork& g : ram.gpus) g = DeviceWork{};
    if (decode_seconds(ram, hardware, fitted_speed_model()) > beat_decode_seconds * (1 + 1e-12)) {
        return std::optional<Placement>{};
    }
    return enumerate_splits(s, beat_decode_seconds, any);
}

}  // namespace canitrun
