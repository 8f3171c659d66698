#include "speed_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

namespace canitrun::tools {
namespace {

constexpr double kBandQuantile = 0.8;

using Keep = std::function<bool(const FitRow&)>;

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

std::string percent(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f %%", v * 100);
    return buf;
}

double out_of_sample(const FitRow& r, bool oos) {
    return oos ? r.out_of_sample : r.in_sample;
}

std::vector<double> errors(const std::vector<FitRow>& rows, bool prefill, bool oos,
                           const Keep& keep) {
    std::vector<double> e;
    for (const FitRow& r : rows) {
        if (r.prefill != prefill || r.m->outlier || !keep(r)) continue;
        e.push_back(abs_error(out_of_sample(r, oos), r.m->tokens_per_second));
    }
    return e;
}

// The runs' fold errors out of sample, each with its weight in a band: 1 / (the runs its source
// has among them), so that every source weighs one in all (band_quantile).
std::vector<WeightedValue> folds(const std::vector<FitRow>& rows, bool prefill, const Keep& keep) {
    std::map<std::string, double> per_source;
    for (const FitRow& r : rows) {
        if (r.prefill == prefill && !r.m->outlier && keep(r)) per_source[r.source_key] += 1;
    }
    std::vector<WeightedValue> e;
    for (const FitRow& r : rows) {
        if (r.prefill != prefill || r.m->outlier || !keep(r)) continue;
        e.push_back(
            {fold_error(r.out_of_sample, r.m->tokens_per_second), 1 / per_source.at(r.source_key)});
    }
    return e;
}

// A band is the fold error that 80 % of the sources' weight stays within, each source weighing
// one: the band is judged on runs of a source it did not see, and a new user's machine is a new
// source, so the source is the unit a band is a quantile over. Counting runs instead let the
// largest sources set the band: a class measured by one big, well-predicted source and a few
// small ones printed the big source's width, and the next source landed outside it ("± N %"
// bands held 74 % of unseen sources' runs where they claim 80 %).
double band_quantile(const std::vector<WeightedValue>& f) {
    return weighted_quantile(f, kBandQuantile);
}

// The band text the CLI prints (src/cli/speed_text.cpp's band_text), for the report.
std::string band_words(const std::vector<WeightedValue>& f) {
    if (f.size() < kMinBandRuns) return "no measured band";
    const double b = band_quantile(f);
    char buf[48];
    if (b >= 1)
        std::snprintf(buf, sizeof buf, "within %.1f×", 1 + b);
    else
        std::snprintf(buf, sizeof buf, "± %.0f %%", std::ceil(b * 100));
    return buf;
}

// Whether a run is inside a band as the band's words claim it: "± N %" bounds |p / m - 1|,
// "within N×" bounds the fold error.
bool covered(double band, double predicted, double measured) {
    return band < 1 ? abs_error(predicted, measured) <= band
                    : fold_error(predicted, measured) <= band;
}

struct Coverage {
    std::uint64_t narrow = 0, narrow_in = 0, wide = 0, wide_in = 0;
    void add(double band, bool in) {
        (band < 1 ? narrow : wide) += 1;
        (band < 1 ? narrow_in : wide_in) += in ? 1 : 0;
    }
};

// Each source's runs against the band their class would print without them: the band from the
// other sources' out-of-sample folds (at least kMinBandRuns of them), the runs judged by a fit
// that did not see them either.
void add_coverage(Coverage& c, const std::vector<FitRow>& rows, bool prefill, const Keep& keep) {
    std::set<std::string> sources;
    for (const FitRow& r : rows) {
        if (r.prefill == prefill && !r.m->outlier && keep(r)) sources.insert(r.source_key);
    }
    for (const std::string& s : sources) {
        const auto others =
            folds(rows, prefill, [&](const FitRow& r) { return keep(r) && r.source_key != s; });
        if (others.size() < kMinBandRuns) continue;
        const double band = band_quantile(others);
        for (const FitRow& r : rows) {
            if (r.prefill != prefill || r.m->outlier || !keep(r) || r.source_key != s) continue;
            c.add(band, covered(band, r.out_of_sample, r.m->tokens_per_second));
        }
    }
}

Keep of_class(SpeedClass sc) {
    return [sc](const FitRow& r) { return sc == SpeedClass::unknown || r.device_class == sc; };
}

// Platforms as the issue names them: every NVIDIA, AMD, Apple and Intel class together.
struct Platform {
    const char* name;
    std::string vendor;  // Gpu::vendor
};
const std::vector<Platform>& platforms() {
    static const std::vector<Platform> p = {
        {"NVIDIA", "nvidia"}, {"AMD", "amd"}, {"Apple", "apple"}, {"Intel", "intel"}};
    return p;
}

// By the vendor of the run's GPU (a class such as no_matrix_units spans vendors).
Keep of_platform(const Platform& p) {
    return [&p](const FitRow& r) { return r.run.gpus.front()->vendor == p.vendor; };
}

void error_row(std::ostream& out, const std::string& label, const std::vector<FitRow>& rows,
               const Keep& keep, bool with_band) {
    out << "| " << label;
    for (const bool prefill : {false, true}) {
        const auto in = errors(rows, prefill, false, keep);
        const auto loo = errors(rows, prefill, true, keep);
        out << " | " << in.size();
        if (in.empty()) {
            out << " | | | |";
            continue;
        }
        out << " | " << percent(quantile(in, 0.5)) << " / " << percent(quantile(in, 0.9)) << " | "
            << percent(quantile(loo, 0.5)) << " / " << percent(quantile(loo, 0.9)) << " | "
            << (with_band ? band_words(folds(rows, prefill, keep)) : "-");
    }
    out << " |\n";
}

// The same errors by weight type, model size, backend and depth: where the misses sit.
void write_breakdown_rows(std::ostream& out, const std::vector<FitRow>& rows) {
    for (int f = 0; f < kQuantFamilyCount; ++f) {
        const auto family = static_cast<QuantFamily>(f);
        error_row(
            out, std::string("weights: ") + quant_family_name(family), rows,
            [family](const FitRow& r) { return quant_family(*r.run.quant) == family; }, false);
    }
    struct Size {
        const char* name;
        double from, to;  // total parameters, billions
    };
    for (const Size s : {Size{"model: under 10B", 0, 10}, Size{"model: 10-40B", 10, 40},
                         Size{"model: over 40B", 40, 1e9}}) {
        error_row(
            out, s.name, rows,
            [s](const FitRow& r) {
                const double b = static_cast<double>(r.run.model->params_total) / 1e9;
                return b >= s.from && b < s.to;
            },
            false);
    }
    for (const char* backend : {"CUDA", "ROCm", "Metal", "Vulkan"}) {
        error_row(
            out, std::string("backend: ") + backend, rows,
            [backend](const FitRow& r) { return r.m->backend == backend; }, false);
    }
    error_row(
        out, "at a depth", rows, [](const FitRow& r) { return r.run.test.depth > 0; }, false);
}

void write_error_tables(std::ostream& out, const std::vector<FitRow>& rows) {
    out << "| runs | decode runs | decode median / p90, in sample | leave one source out | band "
           "printed | prefill runs | prefill median / p90, in sample | leave one source out | "
           "band printed |\n|---|---|---|---|---|---|---|---|---|\n";
    error_row(
        out, "all", rows, [](const FitRow&) { return true; }, true);
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const auto sc = static_cast<SpeedClass>(c);
        if (sc == SpeedClass::unknown) continue;
        error_row(out, speed_class_name(sc), rows, of_class(sc), true);
    }
    for (const Platform& p : platforms())
        error_row(out, std::string("platform: ") + p.name, rows, of_platform(p), false);
    error_row(
        out, "dense models", rows, [](const FitRow& r) { return !r.run.model->is_moe(); }, false);
    error_row(
        out, "MoE models", rows, [](const FitRow& r) { return r.run.model->is_moe(); }, false);
    error_row(
        out, "several GPUs", rows, [](const FitRow& r) { return r.run.gpus.size() > 1; }, false);
    write_breakdown_rows(out, rows);
}

// The out-of-sample targets, each as met or missed.
void write_targets(std::ostream& out, const SpeedModel& m, const std::vector<FitRow>& rows) {
    const OutOfSampleError& e = m.out_of_sample;
    const auto verdict = [](bool ok) { return ok ? "met" : "missed"; };
    out << "| target | leave one source out | |\n|---|---|---|\n"
        << "| decode median <= 10 % | " << percent(e.decode_median) << " | "
        << verdict(e.decode_median <= 0.10) << " |\n"
        << "| prefill median <= 15 % | " << percent(e.prefill_median) << " | "
        << verdict(e.prefill_median <= 0.15) << " |\n"
        << "| decode p90 <= 35 % | " << percent(e.decode_p90) << " | "
        << verdict(e.decode_p90 <= 0.35) << " |\n"
        << "| prefill p90 <= 35 % | " << percent(e.prefill_p90) << " | "
        << verdict(e.prefill_p90 <= 0.35) << " |\n";
    for (const Platform& p : platforms()) {
        for (const bool prefill : {false, true}) {
            const double overall = prefill ? e.prefill_median : e.decode_median;
            const double mine = quantile(errors(rows, prefill, true, of_platform(p)), 0.5);
            out << "| " << p.name << (prefill ? " prefill" : " decode")
                << " median within 1.5x of the overall " << percent(overall) << " | "
                << percent(mine) << " | " << verdict(mine <= 1.5 * overall) << " |\n";
        }
    }
    const auto share = [](const BandCoverage& c) {
        return c.runs > 0 ? percent(c.share) + " of " + std::to_string(c.runs) + " runs" : "none";
    };
    const auto held = [](const BandCoverage& c) {
        return c.runs == 0 || (c.share >= 0.75 && c.share <= 0.85);
    };
    out << "| \"± N %\" bands hold 75-85 % of unseen runs | " << share(m.narrow_bands) << " | "
        << verdict(held(m.narrow_bands)) << " |\n"
        << "| \"within N×\" bands hold 75-85 % of unseen runs | " << share(m.wide_bands) << " | "
        << verdict(held(m.wide_bands)) << " |\n";
}

// Each source's runs: leaving a source out leaves its devices to the others, so a source that is
// its device class's only measurement shows as a large miss here.
void write_sources(std::ostream& out, const std::vector<FitRow>& rows) {
    std::set<std::string> sources;
    for (const FitRow& r : rows) sources.insert(r.source_key);
    out << "| source | decode runs | decode median / p90, in sample | leave one source out | "
           "band printed | prefill runs | prefill median / p90, in sample | leave one source out "
           "| band printed |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const std::string& s : sources) {
        error_row(
            out, s, rows, [&s](const FitRow& r) { return r.source_key == s; }, false);
    }
}

void write_coverage(std::ostream& out, const std::vector<FitRow>& rows) {
    out << "| class | decode band | decode runs within it / judged | prefill band | prefill "
           "runs within it / judged |\n|---|---|---|---|---|\n";
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const auto sc = static_cast<SpeedClass>(c);
        out << "| " << speed_class_name(sc);
        for (const bool prefill : {false, true}) {
            Coverage cov;
            add_coverage(cov, rows, prefill, of_class(sc));
            const auto n = cov.narrow + cov.wide, in = cov.narrow_in + cov.wide_in;
            out << " | " << band_words(folds(rows, prefill, of_class(sc))) << " | ";
            if (n > 0)
                out << percent(static_cast<double>(in) / static_cast<double>(n)) << " (" << in
                    << " / " << n << ")";
            else
                out << "-";
        }
        out << " |\n";
    }
}

void write_coefficients(std::ostream& out, const SpeedModel& m) {
    out << "| group | decode: bandwidth reached | decode: per layer (µs) | decode: per recurrent "
           "layer at 1 TB/s (µs) | decode: unpacking a quantized weight, bytes of read time added "
           "| prefill: matrix rate reached, quantized | the same, FP16/BF16 | "
           "prefill: per layer per micro-batch (µs) | prefill: attention FLOP time multiplier | "
           "prefill: tokens' work per routed expert weight per micro-batch | prefill: per "
           "recurrent layer per "
           "token (µs) |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const auto sc = static_cast<SpeedClass>(c);
        if (speed_group(sc) != sc) continue;
        const SpeedClassCoefficients& k = m.classes[c];
        out << "| " << speed_class_name(sc) << " | "
            << (k.bandwidth > 0 ? percent(1 / k.bandwidth) : "-") << " | "
            << number(k.layer_s * 1e6) << " | " << number(k.recurrent_layer_s * 1e6) << " | "
            << number(k.quantized_unpack) << " | " << (k.compute > 0 ? percent(1 / k.compute) : "-")
            << " | " << (k.compute_float > 0 ? percent(1 / k.compute_float) : "-") << " | "
            << number(k.prefill_layer_s * 1e6) << " | " << number(k.attention) << " | "
            << number(k.expert_compute) << " | " << number(k.prefill_recurrent_s * 1e6) << " |\n";
    }
    out << "\nGroups: nvidia_workstation, nvidia_unified and unknown use nvidia's coefficients "
           "(speed_group).\n\nShared: "
        << number(m.moe_layer_s * 1e6) << " µs per MoE layer per decoded token, "
        << number(m.gpu_hop_s * 1e6)
        << " µs per extra GPU of a layer split, each micro-batch reading the weights at "
        << number(m.weight_reread) << "x their bandwidth time; llama.cpp built before 2025 adding "
        << number(m.older_build_compute) << " to the prefill multiplier and "
        << number(m.older_build_layer_s * 1e6)
        << " µs per layer to a decoded token; the expert products llama.cpp runs one expert at a "
           "time (lone_expert_products) costing "
        << number(m.lone_expert_read) << "x their weights' FP16 read time each micro-batch.\n\n"
        << "| weight type | decode: unpacking, bytes of read time per weight | prefill: added to "
           "the quantized multiplier |\n|---|---|---|\n";
    for (int f = 0; f < kQuantFamilyCount; ++f) {
        out << "| " << quant_family_name(static_cast<QuantFamily>(f)) << " | "
            << number(m.dequant[f]) << " | " << number(m.dequant_prefill[f]) << " |\n";
    }
}

// "M1", "M3 Pro", "M5 Ultra": apple_chip's numbering.
std::string apple_chip_name(int chip) {
    constexpr const char* kTiers[] = {"", " Pro", " Max", " Ultra"};
    return "M" + std::to_string(1 + (chip - 1) / 4) + kTiers[(chip - 1) % 4];
}

// Each Apple chip's a, and the decode runs that measured it.
void write_apple_chips(std::ostream& out, const SpeedModel& m, const std::vector<FitRow>& rows) {
    out << "Apple chips' decode bandwidth reached (include/canitrun/speed.hpp: each chip's a, "
           "pinned towards the "
        << percent(1 / m.of(SpeedClass::apple).bandwidth)
        << " of every Apple run; a chip no decode run measures is that):\n\n| chip | "
           "bandwidth reached | decode runs |\n|---|---|---|\n";
    for (int chip = 1; chip <= kAppleChips; ++chip) {
        int runs = 0;
        for (const FitRow& r : rows) {
            if (!r.prefill && apple_chip(r.prediction.hardware.gpus.front()) == chip) ++runs;
        }
        const double a = m.apple_bandwidth[chip - 1];
        out << "| " << apple_chip_name(chip) << " | " << (a > 0 ? percent(1 / a) : "-") << " | "
            << runs << " |\n";
    }
}

void write_misses(std::ostream& out, const std::vector<FitRow>& rows) {
    std::vector<const FitRow*> sorted;
    for (const FitRow& r : rows) sorted.push_back(&r);
    std::sort(sorted.begin(), sorted.end(), [](const FitRow* a, const FitRow* b) {
        return fold_error(a->out_of_sample, a->m->tokens_per_second) >
               fold_error(b->out_of_sample, b->m->tokens_per_second);
    });
    out << "| model | quant | GPUs | backend | test | measured | in sample | out of sample |\n"
           "|---|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < sorted.size() && i < 15; ++i) {
        const FitRow& r = *sorted[i];
        out << "| " << r.m->model_id << " | " << r.m->quant << " | " << r.m->n_gpus << "x "
            << r.m->gpu_id << " | " << r.m->backend << " | " << r.m->test << " | "
            << number(r.m->tokens_per_second) << " | " << number(std::round(r.in_sample)) << " | "
            << number(std::round(r.out_of_sample)) << (r.m->outlier ? " (flagged outlier)" : "")
            << " |\n";
    }
}

void write_class_source(std::ostream& out, int c, const SpeedClassCoefficients& k) {
    out << "        s.classes[" << c << "] = {  // " << speed_class_name(static_cast<SpeedClass>(c))
        << "\n"
        << "            .bandwidth = " << number(k.bandwidth) << ",\n"
        << "            .layer_s = " << number(k.layer_s) << ",\n"
        << "            .recurrent_layer_s = " << number(k.recurrent_layer_s) << ",\n"
        << "            .quantized_unpack = " << number(k.quantized_unpack) << ",\n"
        << "            .compute = " << number(k.compute) << ",\n"
        << "            .compute_float = " << number(k.compute_float) << ",\n"
        << "            .prefill_layer_s = " << number(k.prefill_layer_s) << ",\n"
        << "            .attention = " << number(k.attention) << ",\n"
        << "            .expert_compute = " << number(k.expert_compute) << ",\n"
        << "            .prefill_recurrent_s = " << number(k.prefill_recurrent_s) << ",\n"
        << "            .decode_band = " << number(k.decode_band) << ",\n"
        << "            .prefill_band = " << number(k.prefill_band) << ",\n"
        << "            .decode_rows = " << k.decode_rows << ",\n"
        << "            .prefill_rows = " << k.prefill_rows << ",\n        };\n";
}

}  // namespace

double abs_error(double predicted, double measured) {
    return measured > 0 ? std::fabs(predicted / measured - 1) : 0;
}

double fold_error(double predicted, double measured) {
    if (measured <= 0) return 0;
    if (predicted <= 0) return 1e9;  // no prediction: outside every band
    return std::max(predicted / measured, measured / predicted) - 1;
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

double weighted_quantile(std::vector<WeightedValue> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end(),
              [](const WeightedValue& a, const WeightedValue& b) { return a.value < b.value; });
    double total = 0;
    for (const WeightedValue& x : v) total += x.weight;
    double below = 0;
    for (const WeightedValue& x : v) {
        below += x.weight;
        // A relative tolerance: equal weights reach q * total exactly at the nearest rank.
        if (below >= q * total * (1 - 1e-12)) return x.value;
    }
    return v.back().value;
}

void set_bands(SpeedModel& model, const std::vector<FitRow>& rows) {
    Coverage cov;
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const auto sc = static_cast<SpeedClass>(c);
        SpeedClassCoefficients& k = model.classes[c];
        const auto d = folds(rows, false, of_class(sc)), p = folds(rows, true, of_class(sc));
        k.decode_rows = d.size();
        k.prefill_rows = p.size();
        k.decode_band = band_quantile(d);
        k.prefill_band = band_quantile(p);
        // The bands a user is shown: a class's own, where it has enough runs.
        if (sc == SpeedClass::unknown) continue;
        if (d.size() >= kMinBandRuns) add_coverage(cov, rows, false, of_class(sc));
        if (p.size() >= kMinBandRuns) add_coverage(cov, rows, true, of_class(sc));
    }
    const auto share = [](std::uint64_t in, std::uint64_t n) {
        return BandCoverage{n > 0 ? static_cast<double>(in) / static_cast<double>(n) : 0, n};
    };
    model.narrow_bands = share(cov.narrow_in, cov.narrow);
    model.wide_bands = share(cov.wide_in, cov.wide);
    const auto all = [](const FitRow&) { return true; };
    const auto d = errors(rows, false, true, all), p = errors(rows, true, true, all);
    model.out_of_sample = {quantile(d, 0.5), quantile(d, 0.9), quantile(p, 0.5), quantile(p, 0.9)};
}

std::string describe_fit(const std::vector<FitRow>& rows, std::size_t all_rows) {
    return "fitted by tools/speed/fit_speed on " + std::to_string(rows.size()) + " of the " +
           std::to_string(all_rows) +
           " published llama-bench rows in validation/llama-bench.json (docs/SPEED.md)";
}

void write_fit_source(std::ostream& out, const SpeedModel& m) {
    out << "// Generated by tools/speed/fit_speed from validation/llama-bench.json: do not edit.\n"
           "// Regenerate with tools/speed/fit.sh after changing the measurements or the model.\n"
           "#include \"canitrun/speed.hpp\"\n\nnamespace canitrun {\n\n"
           "// NOLINTNEXTLINE(readability-function-size): generated, one line per coefficient\n"
           "const SpeedModel& fitted_speed_model() {\n    static const SpeedModel m = [] {\n"
           "        SpeedModel s;\n";
    for (int c = 0; c < kSpeedClassCount; ++c) write_class_source(out, c, m.classes[c]);
    out << "        s.moe_layer_s = " << number(m.moe_layer_s)
        << ";\n        s.gpu_hop_s = " << number(m.gpu_hop_s)
        << ";\n        s.weight_reread = " << number(m.weight_reread)
        << ";\n        s.older_build_compute = " << number(m.older_build_compute)
        << ";\n        s.older_build_layer_s = " << number(m.older_build_layer_s)
        << ";\n        s.lone_expert_read = " << number(m.lone_expert_read) << ";\n";
    for (int chip = 0; chip < kAppleChips; ++chip) {
        out << "        s.apple_bandwidth[" << chip << "] = " << number(m.apple_bandwidth[chip])
            << ";  // " << apple_chip_name(chip + 1) << "\n";
    }
    for (int f = 0; f < kQuantFamilyCount; ++f) {
        out << "        s.dequant[" << f << "] = " << number(m.dequant[f]) << ";  // "
            << quant_family_name(static_cast<QuantFamily>(f)) << "\n"
            << "        s.dequant_prefill[" << f << "] = " << number(m.dequant_prefill[f]) << ";\n";
    }
    out << "        s.narrow_bands = {" << number(m.narrow_bands.share) << ", "
        << m.narrow_bands.runs << "};\n        s.wide_bands = {" << number(m.wide_bands.share)
        << ", " << m.wide_bands.runs << "};\n        s.out_of_sample = {"
        << number(m.out_of_sample.decode_median) << ", " << number(m.out_of_sample.decode_p90)
        << ", " << number(m.out_of_sample.prefill_median) << ", "
        << number(m.out_of_sample.prefill_p90) << "};\n        s.source =\n"
        << "            \"" << m.source << "\";\n        return s;\n    }();\n    return m;\n}\n\n"
        << "}  // namespace canitrun\n";
}

namespace {

// What the fit does not explain, with the runs that show it.
void write_known_limits(std::ostream& out) {
    out << "\n## Known limits\n\n"
           "- One M5 is in the data: an M5 Max's Qwen3.5-35B-A3B Q5_K_S (jimliddle, b9518). "
           "Predicted with its source left out, from Apple's \"over 4x the peak GPU compute for "
           "AI compared to M4\" (data/gpus/apple.json) that llama.cpp reaches through the Metal 4 "
           "tensor API (ggml-org/llama.cpp#16634), its pp512 and pp2048 land within 4 %; its "
           "decode runs 1.27x the prediction. Apple's decode reads at each chip's own share of "
           "its bandwidth (below), fitted on that chip's runs and pinned towards the share of "
           "every Apple run: with one share for every chip, M1 Max runs (XiongjieDai, "
           "ferrum-infer-rs's 24-core one) decoded at 0.6-0.66x their prediction left out and "
           "Apple's decode missed by 26 % at the median; with a share per chip, each M1 Max "
           "source predicts the other's runs (1.27-1.54x and 0.77-0.90x) and Apple misses by "
           "19 % (12 % before each group had its own unpacking cost u, which took Intel's decode "
           "from 44 % to 20 %). The pin's weight is the one of five tried that gave Apple's "
           "left-out error its "
           "lowest; a chip no decode run measures (every M4, M1 Pro, M2 Max) reads at the share "
           "of every Apple run, unmeasured.\n"
           "- A MoE model reads a prompt faster than a dense model of more active parameters on "
           "Apple and AMD APUs, as their published runs do (tests/speed_sanity_test.cpp); on "
           "CUDA it does not, as the published runs do not either (an RTX 4090 reads "
           "qwen3.5-35b-a3b Q4_K_M at 6300 t/s and qwen3.5-9b Q8_0 at 9513, jiegec/kb).\n"
           "- Most classes are measured by one or two sources, so leaving a source out removes "
           "most of what its class is known by: the out-of-sample error is that of a class's "
           "first measurement, and the bands are as wide.\n"
           "- Every device is fitted on the backend canitrun plans it with (CUDA, ROCm, Metal, "
           "Vulkan for Intel): an Arc Pro B70's SYCL and Vulkan runs of one file differ by up to "
           "15x (gemma-4-31b 16384 tokens deep) and a Strix Halo's ROCm and Vulkan runs by up to "
           "2x, so their other backend's runs stay in the data, labelled, and are not fitted.\n"
           "- A run's weights are read at its file's size as llama-bench printed it, not its "
           "label's: 184 rows are Unsloth UD-Q8_K_XL / UD-Q4_K_XL files that llama-bench labels "
           "Q8_0 / Q4_K_M, up to 36 % larger.\n"
           "- GPUs without matrix units (Tesla P40 and P100, Instinct MI50) are a class of their "
           "own, and llama.cpp multiplies quantized weights on each its own way: a P40 (GP102) "
           "and an MI50 (Vega 20) run its MMQ kernels on 4-way int8 dot products "
           "(`int8_dot_tops` in data/gpus: 47 and 53.6 TOPS, 4x their FP32 rate), a P100 "
           "(GP100, no dp4a) dequantizes to FP16 for cuBLAS at its 18.7 TFLOPS. With one rate "
           "for all three (the larger of FP16 and FP32) the class's prefill missed by 125 % at "
           "the median left out (P100 runs at 0.37x their prediction, the P40's at 2.1x); with "
           "the rate each multiplies quantized weights at, by 25 % (1.10x and 0.98x). The "
           "MI50's one source reads prompts at 0.30x its prediction left out: at its dp4a rate "
           "it reaches about 31 % with Q4_0, as a P40 does, but 15-16 % with Q4_K_S and Q8_0, "
           "unexplained. Their decode reads at 63 % of their bandwidth (a), where the other "
           "groups reach 72-98 %.\n"
           "- Intel is the Arc Pro B70 on Vulkan, whose mat-vec kernels unpack quantized weights "
           "slowly: it decodes BF16 files at 83-87 % of its 608 GB/s and Q4_K_M ones at 22-42 %. "
           "Each group's own unpacking cost (u) says so; with one cost for every device, "
           "kyuz0's and Wesley-Jakob-Gilbert's (Mesa 26.0.3) runs decoded at 0.97x and 0.7x "
           "their prediction left out and Intel missed by 44 % at the median; with u per group, "
           "at 0.90x and 1.07x. A Windows run of llama.cpp#24005 still decodes at 2.1-2.6x it "
           "(tg128, empty and 4096 deep): its 97.8 t/s is 2.5x kyuz0's Linux run of the same "
           "model and type, unexplained.\n"
           "- Flash attention on AMD runs llama.cpp's TILE kernel on the shaders where it has no "
           "MMA path, which RDNA4 gained only in llama.cpp#18481 (January 2026), after every "
           "RDNA4 run in the data (kyuz0's R9700, b7423): its attention is read at the shaders' "
           "packed FP16 rate (attention_tflops: 95.7 TFLOPS, half its 191.4 of WMMA), where "
           "RDNA3's "
           "WMMA and shader rates are one figure. At the WMMA rate, the R9700's pp2048 runs 16384 "
           "and 32768 tokens deep read at 0.52x their prediction left out, AMD's attention "
           "multiplier (t) resting on one RX 7900 XTX prompt 4096 deep (llama.cpp#26284), and "
           "AMD's prefill missed by 67 % at the median left out; at the shader rate, 0.76x at the "
           "median (Qwen3-Next's, a hybrid, lowest at 0.39-0.50x) and 14 %. Today's RDNA4 MMA "
           "path (head size up to 128) is not measured.\n"
           "- RDNA2 (no matrix units) is a band class of its own on AMD's coefficients "
           "(amd_no_matrix_units): its one ROCm prompt run (an RX 6700 XT, llama.cpp#5835) reads "
           "at 0.63x its prediction left out, and as a fifth of the sources AMD's band is a "
           "quantile over, it set that band (± 60 %) for RDNA3 and RDNA4 cards, whose left-out "
           "runs it then held 89 % of.\n"
           "- A MoE model's BF16 experts read a prompt through llama.cpp's one-expert-at-a-time "
           "path where MMF does not take them (lone_expert_products: the down product of every "
           "expert wider than 1024 rows past 128 tokens): a Ryzen AI Max's glm-4.7-flash, "
           "qwen3.6-35b-a3b and gemma-4-26b-a4b BF16 pp512 runs, left out, were predicted 13.2x, "
           "7.5x and 6.8x too fast without that cost and 0.85x, 1.50x and 1.25x with it. A "
           "V100's quantized experts take the same path from 64 tokens, but that cost, fitted "
           "on AMD's runs, did not carry to them (include/canitrun/speed.hpp): not modelled.\n";
}

}  // namespace

void write_speed_report(std::ostream& out, const SpeedModel& model, const std::vector<FitRow>& rows,
                        const std::map<std::string, int>& skipped, std::size_t sources) {
    out << "# How fast: the speed model and its measured error\n\n"
           "Generated by `tools/speed/fit.sh` (tools/speed/fit_speed): do not edit by hand.\n\n"
           "The model is described in include/canitrun/speed.hpp. Its coefficients are "
        << model.source
        << ", by least squares on the relative error, every coefficient kept "
           "at or above zero. The error of a run is |predicted / measured - 1|. \"Leave one "
           "source out\" refits without every run of the run's source ("
        << sources
        << " sources: a repository or one discussion thread each) and predicts the run with that "
           "fit, so a source's runs are never judged by a fit that saw them.\n\n"
           "The band printed beside each speed is the fold error max(predicted / measured, "
           "measured / predicted) - 1 that 80 % of the class's left-out runs stayed within, each "
           "source's runs weighing one in all (a band is judged on a source it did not see, so "
           "the source is what it counts), for decode and prefill apart: \"± N %\" below 100 %, "
           "\"within N×\" from there. A class "
           "with fewer than "
        << kMinBandRuns
        << " left-out runs in a regime prints \"no measured band\" rather than borrow another "
           "class's. What the fit does not cover (several machines, several users at once) is "
           "in docs/SPEED-BEYOND.md.\n\n"
           "## Error\n\nMedian / 90th percentile |error|.\n\n";
    write_error_tables(out, rows);
    out << "\n## Targets (leave one source out)\n\n";
    write_targets(out, model, rows);
    out << "\n## Band coverage on unseen sources\n\n"
           "Each source's runs against the band their class would print had that source never "
           "been measured: the band from the other sources' left-out runs (at least "
        << kMinBandRuns
        << " of them), each run predicted by the fit without its source. A band covers 80 % by "
           "design; this is how far that held.\n\n";
    write_coverage(out, rows);
    out << "\n## By source\n\n";
    write_sources(out, rows);
    write_known_limits(out);
    out << "\n## Coefficients\n\n";
    write_coefficients(out, model);
    out << "\n";
    write_apple_chips(out, model, rows);
    out << "\n## Rows not used\n\n";
    for (const auto& [why, n] : skipped) out << "- " << n << ": " << why << "\n";
    out << "\n## The largest misses, out of sample\n\n";
    write_misses(out, rows);
}

}  // namespace canitrun::tools
