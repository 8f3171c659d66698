// Fits the speed model's coefficients (include/canitrun/speed.hpp) to the published llama-bench
// measurements in validation/llama-bench.json, measures its error in sample and leaving one
// source out at a time, and writes both the coefficients (src/core/plan/speed_fit.cpp) and
// the error report (docs/SPEED.md):
//   fit_speed validation/llama-bench.json src/core/plan/speed_fit.cpp docs/SPEED.md
// The model is linear in its coefficients, so each row's features are the model's own time with
// one coefficient at 1 and the rest at 0: the fit never restates the formula it fits.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "canitrun/bounded_file.hpp"
#include "canitrun/database.hpp"
#include "canitrun/measurements.hpp"
#include "canitrun/parallel_map.hpp"
#include "canitrun/speed_check.hpp"
#include "least_squares.hpp"
#include "speed_report.hpp"

namespace canitrun::tools {
namespace {

// One fitted coefficient: a field of every class in a coefficient group (speed_group), or a
// term every device shares.
struct Param {
    bool prefill = false;
    SpeedClass group = SpeedClass::nvidia;  // per group: its representative class
    double SpeedClassCoefficients::*field = nullptr;
    std::function<double&(SpeedModel&)> shared;  // set: a shared term
    int apple_chip = 0;                          // 1..kAppleChips: that Apple chip's a
    double floor = 0;                            // the least value it may take (floored)
};

std::vector<SpeedClass> groups(bool prefill) {
    std::vector<SpeedClass> out;
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const auto sc = static_cast<SpeedClass>(c);
        if (speed_group(sc, prefill) == sc) out.push_back(sc);
    }
    return out;
}

// Decode: a, k, kr and u per group; m, h, ko, kg and d (per weight type but plain floats) shared.
// With no u (d alone, shared), the Arc Pro B70's BF16 runs decoded at 0.44x their prediction and
// its Q4_K_M ones at 1.5-2x, and Intel's decode missed by 44 % at the median left out (20 % with u
// per group; every run 14 % -> 13 %, p90 51 % -> 46 %). Prefill:
// p, p for floats, q, t, x, pe and qr per group; r, o and e (per weight type, the legacy block
// types the baseline p is measured on) shared.
// Multipliers on the FP16 matrix rate's ideal time that no kernel can go below: an FP16/BF16
// GEMM (p for float weights) and flash attention's products (t) run on the FP16 matrix units (or
// the shaders where a device has none) and cannot beat their peak, so neither is fitted below 1
// (#34). Fitted free, a group whose remaining runs barely exercise one could take it under 1 when
// a source was left out: with kyuz0's V100 runs (the datacenter group's only prompts deep in a
// cache) left out, its attention multiplier came out 0, attention free, and those runs' prompts
// 32768 deep read at 1.4-2.9x their measure. Held at 1 or more, every run's prefill p90 left out
// went from 96.9 % to 94.8 % (median 24.5 %, unchanged), the datacenter group's median from 51 %
// to 43 % (the float floor alone moved nothing: no left-out fit went under it). Not floored: p
// for quantized weights, which MMQ multiplies on int8 units at up to twice the FP16 rate it is
// measured against (Turing+, CDNA, RDNA3+). Floored at 1 as well, the datacenter group's
// left-out A100/H100/L40S 70B prompts went from 2.3-8.8x to 1.8-3.9x their measure and every
// run's prefill p90 to 88 %, but its 8B prompts from 1.0x to 1.35x and the CUDA runs' median
// from 24.8 % to 26.1 %: not kept.
constexpr double kFpMultiplierFloor = 1;

std::vector<Param> params(bool prefill) {
    using C = SpeedClassCoefficients;
    const std::vector<double C::*> fields =
        prefill ? std::vector<double C::*>{&C::compute,
                                           &C::compute_float,
                                           &C::prefill_layer_s,
                                           &C::attention,
                                           &C::expert_compute,
                                           &C::expert_flop,
                                           &C::prefill_recurrent_s}
                : std::vector<double C::*>{&C::bandwidth, &C::layer_s, &C::recurrent_layer_s,
                                           &C::quantized_unpack};
    std::vector<Param> out;
    for (const auto field : fields) {
        for (const SpeedClass g : groups(prefill)) {
            // The datacenter group's one MoE prompt (AUGMXNT's DeepSeek-V3 on 8 H100s) would set
            // its pe alone, at 68, and read an A100's qwen3-30b-a3b prompt slower than a V100's:
            // it keeps none (0). Pinned at the pooled value at the weight of a run (1 or 50), or
            // one pe shared by every device (prefill left out 19.4 % / 58.5 %), did not hold it.
            if (field == &C::expert_flop && g == SpeedClass::nvidia_datacenter) continue;
            // a, the share of the bandwidth a decode reads weights at, is held at 1 or more: no
            // mat-vec reads weights faster than the memory does. Fitted free, a left-out fit took
            // Intel's under 1 (its remaining sources decode only quantized files, whose time a and
            // u share) and read the B70's BF16 decodes at 13-27x their measure (SPEED.md).
            // A V100's quantized products are FP16 cuBLAS GEMMs too (nvidia_volta), so its p
            // is held at 1 or more as well: fitted free, it came out 0 (the products free, the
            // time in the per-layer cost), as its MoE runs of 3-4B active parameters barely
            // exercise it.
            const bool floored = field == &C::compute_float || field == &C::attention ||
                                 field == &C::bandwidth ||
                                 (field == &C::compute && g == SpeedClass::nvidia_volta);
            out.push_back(Param{prefill, g, field, {}, 0, floored ? kFpMultiplierFloor : 0});
        }
    }
    const auto shared = [&](std::function<double&(SpeedModel&)> f) {
        out.push_back(Param{prefill, SpeedClass::nvidia, nullptr, std::move(f)});
    };
    if (prefill) {
        shared([](SpeedModel& m) -> double& { return m.weight_reread; });
        shared([](SpeedModel& m) -> double& { return m.older_build_compute; });
        shared([](SpeedModel& m) -> double& { return m.lone_expert_read; });
        shared([](SpeedModel& m) -> double& { return m.lone_expert_call_s; });
        shared([](SpeedModel& m) -> double& { return m.lone_expert_sort_s; });
        shared([](SpeedModel& m) -> double& { return m.mask_cell_s; });
    } else {
        shared([](SpeedModel& m) -> double& { return m.moe_layer_s; });
        shared([](SpeedModel& m) -> double& { return m.gpu_hop_s; });
        shared([](SpeedModel& m) -> double& { return m.older_build_layer_s; });
        shared([](SpeedModel& m) -> double& { return m.graph_check_layer_s; });
        shared([](SpeedModel& m) -> double& { return m.hip_launch_layer_s; });
        shared([](SpeedModel& m) -> double& { return m.intel_fp4_unpack; });
        for (int chip = 0; chip < kAppleChips; ++chip) {
            shared([chip](SpeedModel& m) -> double& { return m.apple_bandwidth[chip]; });
            out.back().apple_chip = chip + 1;
        }
    }
    for (int f = 0; f < kQuantFamilyCount; ++f) {
        const auto family = static_cast<QuantFamily>(f);
        if (family == QuantFamily::floating || (prefill && family == QuantFamily::legacy)) continue;
        if (prefill)
            shared([f](SpeedModel& m) -> double& { return m.dequant_prefill[f]; });
        else
            shared([f](SpeedModel& m) -> double& { return m.dequant[f]; });
    }
    return out;
}

void set(SpeedModel& m, const Param& p, double v) {
    if (p.shared) {
        p.shared(m) = v;
        return;
    }
    for (int c = 0; c < kSpeedClassCount; ++c) {
        if (speed_group(static_cast<SpeedClass>(c), p.prefill) == p.group)
            m.classes[c].*p.field = v;
    }
}

// Every term at 0, the unfitted RAM and PCIe terms included (no fitted row offloads), exactly:
// the hidden state's PCIe hand-over at 1e30 GB/s was 1e-35 s, which made every coefficient's
// feature nonzero on split runs, and one left-out fit set a coefficient none exercised to 1e31.
SpeedModel zero_model() {
    SpeedModel m;
    m.ram_bandwidth_efficiency = std::numeric_limits<double>::infinity();
    m.pcie_gbps = std::numeric_limits<double>::infinity();
    m.xe2_kv_position_s = 0;   // stated, not fitted: each row's FitRow::fixed
    m.mmq_reread = 0;          // the same
    m.activation_traffic = 0;  // the same
    for (const bool prefill : {false, true}) {
        for (const Param& p : params(prefill)) set(m, p, 0);
    }
    return m;
}

// The time the row's test takes per token with only coefficient p at 1.
double feature(const FitRow& r, const SpeedModel& zero, const Param& p) {
    SpeedModel unit = zero;
    set(unit, p, 1);
    if (r.prefill)
        return prefill_seconds(r.prediction.prefill, r.prediction.hardware, unit,
                               r.prediction.ubatch)
            .value_or(0);
    return decode_seconds(r.prediction.decode, r.prediction.hardware, unit);
}

// Rows of one half (decode or prefill), as least-squares rows.
std::vector<Row> design(const std::vector<FitRow>& rows, bool prefill,
                        const std::string& leave_out) {
    std::vector<Row> out;
    for (const FitRow& r : rows) {
        if (r.prefill != prefill || r.m->outlier || r.source_key == leave_out) continue;
        Row row;
        row.x = r.features;
        row.y = 1.0 / r.m->tokens_per_second;
        row.offset = r.fixed;
        out.push_back(std::move(row));
    }
    return out;
}

// The same rows with every per-group coefficient pooled into one per field: a row runs on one
// group, so its pooled feature is the sum of its per-group ones. Returns each coefficient's
// index among the pooled ones.
std::vector<std::size_t> pool(const std::vector<Param>& ps, std::vector<Row>& rows) {
    std::vector<std::size_t> to;
    std::vector<double SpeedClassCoefficients::*> fields;
    std::size_t shared = 0;
    for (const Param& p : ps) {
        if (p.shared) continue;
        if (std::find(fields.begin(), fields.end(), p.field) == fields.end())
            fields.push_back(p.field);
    }
    for (const Param& p : ps) {
        if (p.shared)
            to.push_back(fields.size() + shared++);
        else
            to.push_back(static_cast<std::size_t>(std::find(fields.begin(), fields.end(), p.field) -
                                                  fields.begin()));
    }
    for (Row& r : rows) {
        std::vector<double> x(fields.size() + shared, 0);
        for (std::size_t j = 0; j < ps.size(); ++j) x[to[j]] += r.x[j];
        r.x = std::move(x);
    }
    return to;
}

// Each per-group coefficient gets one more row pinning it at the value the same rows give it
// pooled over every group, at a weight too small to move it where a training row exercises it:
// a coefficient none does (a group with no MoE, no hybrid or no float-weight run) is the pooled
// value, never another group's own. (Pinning harder, as partial pooling, raised the
// leave-one-source-out error at every weight tried from 0.3 to 30.)
constexpr double kPooledPinWeight = 1e-6;

// A group's share of the bandwidth (a) is pinned harder, at the weight of three runs: a group
// whose remaining sources decode only quantized files cannot tell a from its unpacking cost u
// (each file's bytes and weights move together) and took an a no float mat-vec reads at. With
// kyuz0's AI PRO R9700 runs left out, AMD's other sources (RX 7900 XTX, W7900, RX 9070: Q4_0,
// Q4_K, Q6_K) left AMD's a to trade with u, and the R9700's BF16 decodes read at 0.55-0.62x
// their measure; pinned, that source's median error left out fell from 22 % to 12 % (at 0.3). A
// group with float runs of its own is held by them (a run weighs up to 50, fit_robust).
// Of 0.03, 0.3, 1, 3 and 10, 3 and 10 gave the lowest decode error left out, alike; 3 pulls
// the groups' own runs less (docs/SPEED.md).
constexpr double kBandwidthPinWeight = 3;

// The group a prefill group falls back to: the decode group of its classes where that is another
// (speed_group: a V100's prompts are its own, its decode the datacenter group's), else none.
// An RDNA3.5 APU's (the Ryzen AI Max's) prompts fall back on the discrete Radeons': ROCm runs
// the same MMQ-on-WMMA kernels on both (llama.cpp#17576, then #18666's RDNA3.5 selection), where
// the value pooled over every group is set by NVIDIA's and Apple's matrix units. With kyuz0's
// Strix Halo runs left out, the pooled terms read its prompts at 2.2-2.7x their measure (#34).
SpeedClass parent_group(const Param& p) {
    if (!p.prefill || p.shared) return p.group;
    if (p.group == SpeedClass::amd_apu) return SpeedClass::amd;
    return speed_group(p.group, false);
}

// Whether any run (not a prior) exercises coefficient j: one no run does is 0 in a least-squares
// fit, a value no measurement gave it. A multiplier held at a floor (Param::floor: the ideal time
// it multiplies cannot be beaten) is exercised only by a run whose ideal time for it is at least
// kFloorMeasuredShare of its measured time: an empty prompt's attention (XiongjieDai's A100 8B
// pp512: 0.43 us of the 129 us a token takes at the A100's 312 TFLOPS, 0.3 %) leaves the
// multiplier wherever the floor puts it, at 1, which the other runs do not tell apart from 10.
// The datacenter group's attention multiplier was so "measured" with kyuz0's V100 runs (its only
// prompts deep in a cache) left out, and pinned the V100's at 1: their pp2048 runs 32768 deep,
// whose attention takes 3.7 % of their time at 1 (and 37 % at the V100's own multiplier, 10),
// read at 1.9-2.35x their measure left out (#34).
constexpr double kFloorMeasuredShare = 0.01;

bool measured(const std::vector<Row>& rows, std::size_t j, double floor) {
    return std::any_of(rows.begin(), rows.end(), [&](const Row& r) {
        if (r.prior || r.x[j] == 0) return false;
        return floor <= 0 || r.x[j] * floor >= kFloorMeasuredShare * r.y;
    });
}

// Each coefficient of a group with a parent (parent_group) is pinned at the value its parent's
// takes with the group's rows merged into the parent's, not at the value pooled over every
// group: the V100 whose one source is left out reads its prompts at the other datacenter cards'
// terms, as it did inside their group, while those cards no longer take the V100's (#34). A
// parent coefficient no merged run measures (the datacenter group's attention multiplier with
// kyuz0's V100 runs, its only prompts deep in a cache, left out) pins nothing: the group's own
// coefficient then takes the value pooled over every group, as any unmeasured one does, not 0
// (its floor), at which the V100's pp2048 runs 32768 deep read at 2.0-2.5x their measure.
// Returns each coefficient's pin (below 0: none).
std::vector<double> parent_pins(const std::vector<Param>& ps, std::vector<Row> rows) {
    std::vector<std::size_t> to(ps.size());
    bool any = false;
    for (std::size_t j = 0; j < ps.size(); ++j) {
        to[j] = j;
        if (parent_group(ps[j]) == ps[j].group) continue;
        for (std::size_t k = 0; k < ps.size(); ++k) {
            if (!ps[k].shared && ps[k].field == ps[j].field && ps[k].group == parent_group(ps[j]))
                to[j] = k;
        }
        any = any || to[j] != j;
    }
    std::vector<double> out(ps.size(), -1);
    if (!any || rows.empty()) return out;
    for (Row& r : rows) {
        for (std::size_t j = 0; j < ps.size(); ++j) {
            if (to[j] == j) continue;
            r.x[to[j]] += r.x[j];
            r.x[j] = 0;
        }
    }
    const std::vector<double> merged = fit_robust(rows, std::vector<bool>(ps.size(), true));
    for (std::size_t j = 0; j < ps.size(); ++j) {
        if (to[j] != j && measured(rows, to[j], ps[to[j]].floor)) out[j] = merged[to[j]];
    }
    return out;
}

// Each Apple chip's a is pinned at the a fitted over every Apple run at once (one column for
// all chips), at the weight of a third of a run: a chip measured by a few runs moves from it as
// far as they ask, and one measured by none (no M4 decode run is in the data), or whose only
// source is left out, is that value rather than 0. The weight is the one of 0.03, 0.1, 0.3, 1
// and 3 that gave Apple's decode the lowest leave-one-source-out error (13 %; 20 %, 20 %, 17 %,
// 20 % at the others, 26 % with one a for every chip), so the Apple figures in docs/SPEED.md
// have seen that one choice. Returns the pooled value (0 without Apple runs).
constexpr double kAppleChipPinWeight = 0.3;

double pin_apple_chips(const std::vector<Param>& ps, std::vector<Row>& d) {
    std::vector<std::size_t> chips;
    for (std::size_t j = 0; j < ps.size(); ++j) {
        if (ps[j].apple_chip > 0) chips.push_back(j);
    }
    if (chips.empty() || d.empty()) return 0;
    std::vector<Row> one = d;
    for (Row& r : one) {
        for (std::size_t k = 1; k < chips.size(); ++k) {
            r.x[chips[0]] += r.x[chips[k]];
            r.x[chips[k]] = 0;
        }
    }
    const double apple = fit_robust(one, std::vector<bool>(ps.size(), true))[chips[0]];
    if (apple <= 0) return 0;
    for (const std::size_t j : chips) {
        Row prior;
        prior.x.assign(ps.size(), 0);
        prior.x[j] = 1;
        prior.y = apple;
        prior.w = kAppleChipPinWeight;
        prior.prior = true;
        d.push_back(std::move(prior));
    }
    return apple;
}

void fit_half(SpeedModel& m, const std::vector<FitRow>& rows, bool prefill,
              const std::string& leave_out) {
    std::vector<Row> d = design(rows, prefill, leave_out);
    const std::vector<Param> ps = params(prefill);
    // A floored coefficient is fitted as its excess over the floor, the floor's time a fixed part
    // of each row (Row::offset), so the excess stays at or above 0 as every coefficient does.
    for (Row& r : d) {
        for (std::size_t j = 0; j < ps.size(); ++j) r.offset += r.x[j] * ps[j].floor;
    }
    const double apple = pin_apple_chips(ps, d);
    const std::vector<double> parents = parent_pins(ps, d);
    std::vector<Row> pooled = d;
    const std::vector<std::size_t> to = pool(ps, pooled);
    const std::vector<double> all =
        fit_robust(pooled, std::vector<bool>(pooled.empty() ? 0 : pooled[0].x.size(), true));
    for (std::size_t j = 0; j < ps.size(); ++j) {
        const double pin = parents[j] >= 0 ? parents[j] : all[to[j]];
        if (ps[j].shared || pin <= 0) continue;
        Row prior;
        prior.x.assign(ps.size(), 0);
        prior.x[j] = 1;
        prior.y = pin;
        prior.w = ps[j].field == &SpeedClassCoefficients::bandwidth ? kBandwidthPinWeight
                                                                    : kPooledPinWeight;
        prior.prior = true;
        d.push_back(std::move(prior));
    }
    const std::vector<double> theta = fit_robust(d, std::vector<bool>(ps.size(), true));
    for (std::size_t j = 0; j < ps.size(); ++j) set(m, ps[j], theta[j] + ps[j].floor);
    // An Apple chip the model does not know (an M6) reads at every Apple run's a. A chip's a
    // below 1 would read more than its bandwidth: the one M5 Max decode run (a MoE model, 1.4x
    // the Apple prediction) asks 0.55, which is what the model does not explain of that chip
    // (its fixed costs), not a bandwidth; held at 1.
    if (apple > 0) m.classes[static_cast<int>(SpeedClass::apple)].bandwidth = apple;
    for (double& a : m.apple_bandwidth) {
        if (a > 0) a = std::max(a, 1.0);
    }
}

SpeedModel fit(const std::vector<FitRow>& rows, const std::string& leave_out = {}) {
    SpeedModel m;
    fit_half(m, rows, false, leave_out);
    fit_half(m, rows, true, leave_out);
    return m;
}

double predicted(const FitRow& r, const SpeedModel& m) {
    const double s = r.prefill ? prefill_seconds(r.prediction.prefill, r.prediction.hardware, m,
                                                 r.prediction.ubatch)
                                     .value_or(0)
                               : decode_seconds(r.prediction.decode, r.prediction.hardware, m);
    return s > 0 ? 1.0 / s : 0;
}

// The source a row came from, at the grain of one publisher: a repository, or one thread.
std::string source_key(const std::string& url) {
    const std::string gh = "https://github.com/";
    if (!url.starts_with(gh)) return url.substr(0, url.find('#'));
    std::vector<std::string> parts;
    std::stringstream ss(url.substr(gh.size()));
    for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
    std::string key =
        gh + (!parts.empty() ? parts[0] : "") + "/" + (parts.size() > 1 ? parts[1] : "");
    if (parts.size() > 3 &&
        (parts[2] == "issues" || parts[2] == "pull" || parts[2] == "discussions"))
        key += "/" + parts[2] + "/" + parts[3].substr(0, parts[3].find('#'));
    return key;
}

std::vector<FitRow> usable_rows(const Database& db, const std::vector<Measurement>& all,
                                std::map<std::string, int>& skipped) {
    std::vector<FitRow> rows;
    for (const Measurement& m : all) {
        auto run = bench_run_for(db, m);
        if (!run) {
            ++skipped[run.error().message];
            continue;
        }
        const bool prefill = run->test.n_prompt > 0 && run->test.n_gen == 0;
        const bool decode = run->test.n_gen > 0 && run->test.n_prompt == 0;
        if (!prefill && !decode) {
            ++skipped["a combined pp+tg test"];
            continue;
        }
        auto p = predict_bench(*run);
        if (!p) {
            ++skipped[p.error().message];
            continue;
        }
        if (const std::string why = fit_exclusion(m, *run->model, p->hardware); !why.empty()) {
            ++skipped[why];
            continue;
        }
        const SpeedClass c = speed_class(p->hardware.gpus.front());
        rows.push_back(
            FitRow{&m, *run, std::move(*p), prefill, source_key(m.source), c, {}, 0, 0, 0});
    }
    return rows;
}

// The stated terms' time (SpeedModel::xe2_kv_position_s, mmq_reread, activation_traffic): a
// part of each row no coefficient scales.
void set_stated_times(std::vector<FitRow>& rows, const SpeedModel& zero) {
    SpeedModel stated = zero;
    stated.xe2_kv_position_s = SpeedModel{}.xe2_kv_position_s;
    stated.mmq_reread = SpeedModel{}.mmq_reread;
    stated.activation_traffic = SpeedModel{}.activation_traffic;
    for (FitRow& r : rows) {
        r.fixed = r.prefill ? prefill_seconds(r.prediction.prefill, r.prediction.hardware, stated,
                                              r.prediction.ubatch)
                                  .value_or(0)
                            : decode_seconds(r.prediction.decode, r.prediction.hardware, stated);
    }
}

}  // namespace
}  // namespace canitrun::tools

int main(int argc, char** argv) {
    using namespace canitrun;
    using namespace canitrun::tools;
    if (argc != 4) {
        std::cerr << "usage: fit_speed VALIDATION_JSON OUT_CPP OUT_MD\n";
        return 2;
    }
    auto text = read_bounded_file(argv[1], kMaxDatabaseFileBytes, "measurements file");
    if (!text) {
        std::cerr << "fit_speed: " << text.error().message << "\n";
        return 1;
    }
    auto measurements = parse_measurements(*text);
    auto db = parse_database(embedded_database_files());
    if (!measurements || !db) {
        std::cerr << "fit_speed: cannot read the measurements or the database\n";
        return 1;
    }
    std::map<std::string, int> skipped;
    std::vector<FitRow> rows = usable_rows(*db, *measurements, skipped);
    const SpeedModel zero = zero_model();
    for (FitRow& r : rows) {
        // A known Apple chip reads at its own a, never the class's (which the zero model leaves
        // in place of the chip's, as it leaves every term at 0).
        const bool chip = apple_chip(r.prediction.hardware.gpus.front()) > 0;
        for (const Param& p : params(r.prefill)) {
            const bool unused = chip && p.field == &SpeedClassCoefficients::bandwidth;
            r.features.push_back(unused ? 0 : feature(r, zero, p));
        }
    }
    set_stated_times(rows, zero);
    SpeedModel model = fit(rows);
    for (FitRow& r : rows) r.in_sample = predicted(r, model);
    // One refit per source, each on its own core (fit reads the rows and nothing else, so the
    // models are the ones a loop would make): the leave-one-out fits were most of CI's speed-fit
    // stage.
    std::vector<std::string> keys;
    for (const FitRow& r : rows) {
        if (std::find(keys.begin(), keys.end(), r.source_key) == keys.end()) {
            keys.push_back(r.source_key);
        }
    }
    const std::vector<SpeedModel> refits =
        parallel_map(keys.size(), [&](std::size_t i) { return fit(rows, keys[i]); });
    std::map<std::string, SpeedModel> loo;
    for (std::size_t i = 0; i < keys.size(); ++i) loo.emplace(keys[i], refits[i]);
    for (FitRow& r : rows) r.out_of_sample = predicted(r, loo.at(r.source_key));
    set_bands(model, rows);
    model.source = describe_fit(rows, measurements->size());
    std::ofstream cpp(argv[2]), md(argv[3]);
    write_fit_source(cpp, model);
    write_speed_report(md, model, rows, skipped, loo.size());
    if (!cpp || !md) {
        std::cerr << "fit_speed: cannot write the outputs\n";
        return 1;
    }
    std::cout << rows.size() << " rows fitted, " << loo.size() << " sources\n";
    // FIT_SPEED_ROWS=1: every row's prediction and its index in the measurements file, for
    // looking into the misses.
    if (std::getenv("FIT_SPEED_ROWS") != nullptr) {
        for (const FitRow& r : rows) {
            std::cout << (r.prefill ? "pp" : "tg") << "," << speed_class_name(r.device_class) << ","
                      << r.m->model_id << "," << r.m->quant << "," << r.m->n_gpus << "x"
                      << r.m->gpu_id << "," << r.m->backend << "," << r.m->test << "," << r.m->date
                      << "," << r.m->tokens_per_second << "," << r.in_sample << ","
                      << r.out_of_sample << "," << r.source_key << ","
                      << (r.m - measurements->data()) << "\n";
        }
    }
    return 0;
}
