#include "speed_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace canitrun::tools {
namespace {

constexpr double kBandQuantile = 0.8;

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

std::vector<double> errors(const std::vector<FitRow>& rows, bool prefill, bool out_of_sample,
                           const std::function<bool(const FitRow&)>& keep) {
    std::vector<double> e;
    for (const FitRow& r : rows) {
        if (r.prefill != prefill || r.m->outlier || !keep(r)) continue;
        e.push_back(
            abs_error(out_of_sample ? r.out_of_sample : r.in_sample, r.m->tokens_per_second));
    }
    return e;
}

// Share of rows whose prediction is within 2x of the measurement either way.
double within_2x(const std::vector<FitRow>& rows, bool out_of_sample) {
    double n = 0, hit = 0;
    for (const FitRow& r : rows) {
        if (!r.prefill || r.m->outlier) continue;
        const double p = out_of_sample ? r.out_of_sample : r.in_sample;
        const double ratio = p / r.m->tokens_per_second;
        n += 1;
        if (ratio <= 2.0 && ratio >= 0.5) hit += 1;
    }
    return n > 0 ? hit / n : 0;
}

void error_row(std::ostream& out, const std::string& label, const std::vector<FitRow>& rows,
               const std::function<bool(const FitRow&)>& keep) {
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
            << percent(quantile(loo, kBandQuantile));
    }
    out << " |\n";
}

void write_error_tables(std::ostream& out, const std::vector<FitRow>& rows) {
    out << "| rows | decode rows | decode median / p90, in sample | leave one source out | band "
           "(p80, out of sample) | prefill rows | prefill median / p90, in sample | leave one "
           "source out | band (p80, out of sample) |\n|---|---|---|---|---|---|---|---|---|---|\n";
    error_row(out, "all", rows, [](const FitRow&) { return true; });
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const auto sc = static_cast<SpeedClass>(c);
        error_row(out, speed_class_name(sc), rows,
                  [sc](const FitRow& r) { return r.device_class == sc; });
    }
    error_row(out, "dense models", rows, [](const FitRow& r) { return !r.run.model->is_moe(); });
    error_row(out, "MoE models", rows, [](const FitRow& r) { return r.run.model->is_moe(); });
    error_row(out, "several GPUs", rows, [](const FitRow& r) { return r.run.gpus.size() > 1; });
    out << "\n90 % of prefill rows within 2x: " << percent(within_2x(rows, false)) << " in sample, "
        << percent(within_2x(rows, true)) << " leaving one source out.\n";
}

void write_coefficients(std::ostream& out, const SpeedModel& m) {
    out << "| class | decode: bandwidth reached | decode: per layer (µs) | prefill: tensor "
           "throughput reached, quantized weights | the same, FP16/BF16 weights | prefill: per "
           "layer per micro-batch (µs) | prefill: routed-expert "
           "FLOP time multiplier |\n|---|---|---|---|---|---|---|\n";
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const SpeedClassCoefficients& k = m.classes[c];
        out << "| " << speed_class_name(static_cast<SpeedClass>(c)) << " | "
            << (k.bandwidth > 0 ? percent(1 / k.bandwidth) : "-") << " | "
            << number(k.layer_s * 1e6) << " | " << (k.compute > 0 ? percent(1 / k.compute) : "-")
            << " | " << (k.compute_float > 0 ? percent(1 / k.compute_float) : "-") << " | "
            << number(k.prefill_layer_s * 1e6) << " | " << number(k.expert_compute) << " |\n";
    }
    out << "\nShared: " << number(m.moe_layer_s * 1e6) << " µs per MoE layer per decoded token, "
        << number(m.gpu_hop_s * 1e6)
        << " µs per extra GPU of a layer split, each micro-batch reading "
           "the weights at "
        << number(m.weight_reread) << "x their bandwidth time, attention products at "
        << number(m.attention_compute) << "x their ideal FLOP time.\n";
}

void write_misses(std::ostream& out, const std::vector<FitRow>& rows) {
    std::vector<const FitRow*> sorted;
    for (const FitRow& r : rows) sorted.push_back(&r);
    std::sort(sorted.begin(), sorted.end(), [](const FitRow* a, const FitRow* b) {
        return abs_error(a->out_of_sample, a->m->tokens_per_second) >
               abs_error(b->out_of_sample, b->m->tokens_per_second);
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

}  // namespace

double abs_error(double predicted, double measured) {
    return measured > 0 ? std::fabs(predicted / measured - 1) : 0;
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

void set_bands(SpeedModel& model, const std::vector<FitRow>& rows) {
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const auto sc = static_cast<SpeedClass>(c);
        const auto keep = [sc](const FitRow& r) {
            return sc == SpeedClass::unknown || r.device_class == sc;
        };
        SpeedClassCoefficients& k = model.classes[c];
        const auto d_in = errors(rows, false, false, keep), d_out = errors(rows, false, true, keep);
        const auto p_in = errors(rows, true, false, keep), p_out = errors(rows, true, true, keep);
        k.decode_rows = d_in.size();
        k.prefill_rows = p_in.size();
        k.decode_band = quantile(d_in, kBandQuantile);
        k.decode_band_loo = quantile(d_out, kBandQuantile);
        k.prefill_band = quantile(p_in, kBandQuantile);
        k.prefill_band_loo = quantile(p_out, kBandQuantile);
    }
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
    for (int c = 0; c < kSpeedClassCount; ++c) {
        const SpeedClassCoefficients& k = m.classes[c];
        out << "        s.classes[" << c << "] = {  // "
            << speed_class_name(static_cast<SpeedClass>(c)) << "\n"
            << "            .bandwidth = " << number(k.bandwidth) << ",\n"
            << "            .layer_s = " << number(k.layer_s) << ",\n"
            << "            .compute = " << number(k.compute) << ",\n"
            << "            .compute_float = " << number(k.compute_float) << ",\n"
            << "            .prefill_layer_s = " << number(k.prefill_layer_s) << ",\n"
            << "            .expert_compute = " << number(k.expert_compute) << ",\n"
            << "            .decode_band = " << number(k.decode_band) << ",\n"
            << "            .prefill_band = " << number(k.prefill_band) << ",\n"
            << "            .decode_band_loo = " << number(k.decode_band_loo) << ",\n"
            << "            .prefill_band_loo = " << number(k.prefill_band_loo) << ",\n"
            << "            .decode_rows = " << k.decode_rows << ",\n"
            << "            .prefill_rows = " << k.prefill_rows << ",\n        };\n";
    }
    out << "        s.moe_layer_s = " << number(m.moe_layer_s)
        << ";\n        s.gpu_hop_s = " << number(m.gpu_hop_s)
        << ";\n        s.weight_reread = " << number(m.weight_reread)
        << ";\n        s.attention_compute = " << number(m.attention_compute)
        << ";\n        s.source =\n"
        << "            \"" << m.source << "\";\n        return s;\n    }();\n    return m;\n}\n\n"
        << "}  // namespace canitrun\n";
}

void write_speed_report(std::ostream& out, const SpeedModel& model, const std::vector<FitRow>& rows,
                        const std::map<std::string, int>& skipped, std::size_t sources) {
    out << "# How fast: the speed model and its measured error\n\n"
           "Generated by `tools/speed/fit.sh` (tools/speed/fit_speed): do not edit by hand.\n\n"
           "The model is described in include/canitrun/speed.hpp. Its coefficients are "
        << model.source
        << ", by least squares on the relative error, every coefficient kept "
           "at or above zero. The error of a row is |predicted / measured - 1|. \"Leave one "
           "source out\" refits without every row of the row's source ("
        << sources
        << " sources: a repository or one discussion thread each) and predicts the row with that "
           "fit, so a source's rows are never judged by a fit that saw them. The band printed "
           "beside each speed is the out-of-sample 80th percentile of the device class. What the "
           "fit does not cover (several machines, several users at once) is in "
           "docs/SPEED-BEYOND.md.\n\n"
           "## Error\n\nMedian / 90th percentile |error|.\n\n";
    write_error_tables(out, rows);
    out << "\n## Coefficients\n\n";
    write_coefficients(out, model);
    out << "\n## Rows not used\n\n";
    for (const auto& [why, n] : skipped) out << "- " << n << ": " << why << "\n";
    out << "\n## The largest misses, out of sample\n\n";
    write_misses(out, rows);
}

}  // namespace canitrun::tools
