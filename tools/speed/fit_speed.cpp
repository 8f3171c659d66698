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
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "canitrun/bounded_file.hpp"
#include "canitrun/database.hpp"
#include "canitrun/measurements.hpp"
#include "canitrun/speed_check.hpp"
#include "least_squares.hpp"
#include "speed_report.hpp"

namespace canitrun::tools {
namespace {

constexpr std::size_t kClasses = kSpeedClassCount;
// Decode: bandwidth and layer_s per class, moe_layer_s and gpu_hop_s shared. Prefill: compute,
// compute_float, prefill_layer_s and expert_compute per class, weight_reread and
// attention_compute shared.
constexpr std::size_t kPerClass[2] = {2, 4};

std::size_t coefficient_count(bool prefill) {
    return kPerClass[prefill ? 1 : 0] * kClasses + 2;
}

// Coefficient j of the decode (or prefill) half of the model.
double& coefficient(SpeedModel& m, bool prefill, std::size_t j) {
    if (j < kPerClass[prefill ? 1 : 0] * kClasses) {
        SpeedClassCoefficients& c = m.classes[j % kClasses];
        const std::size_t which = j / kClasses;
        if (!prefill) return which == 0 ? c.bandwidth : c.layer_s;
        if (which == 0) return c.compute;
        if (which == 1) return c.compute_float;
        return which == 2 ? c.prefill_layer_s : c.expert_compute;
    }
    const std::size_t shared = j - kPerClass[prefill ? 1 : 0] * kClasses;
    if (prefill) return shared == 0 ? m.weight_reread : m.attention_compute;
    return shared == 0 ? m.moe_layer_s : m.gpu_hop_s;
}

// Every term at 0, the unfitted RAM and PCIe terms included (no fitted row offloads).
SpeedModel zero_model() {
    SpeedModel m;
    m.ram_bandwidth_efficiency = 1e30;
    m.pcie_gbps = 1e30;
    for (const bool prefill : {false, true}) {
        for (std::size_t j = 0; j < coefficient_count(prefill); ++j) coefficient(m, prefill, j) = 0;
    }
    return m;
}

// The time the row's test takes per token with only coefficient j at 1.
double feature(const FitRow& r, std::size_t j) {
    SpeedModel unit = zero_model();
    coefficient(unit, r.prefill, j) = 1;
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
        for (std::size_t j = 0; j < coefficient_count(prefill); ++j) row.x.push_back(feature(r, j));
        row.y = 1.0 / r.m->tokens_per_second;
        out.push_back(std::move(row));
    }
    return out;
}

// A per-class coefficient no training row exercises takes the value of the nearest measured
// class: NVIDIA GeForce, workstation and datacenter cards in that order (the most measured);
// `unknown` always does.
void fill_unmeasured(SpeedModel& m, const std::vector<Row>& rows, bool prefill) {
    const auto unknown = static_cast<std::size_t>(SpeedClass::unknown);
    const std::size_t per_class = kPerClass[prefill ? 1 : 0] * kClasses;
    std::vector<bool> seen(per_class, false);
    for (std::size_t j = 0; j < per_class; ++j) {
        for (const Row& r : rows) seen[j] = seen[j] || r.x[j] > 0;
    }
    const std::size_t order[] = {static_cast<std::size_t>(SpeedClass::nvidia),
                                 static_cast<std::size_t>(SpeedClass::nvidia_workstation),
                                 static_cast<std::size_t>(SpeedClass::nvidia_datacenter)};
    for (std::size_t j = 0; j < per_class; ++j) {
        const std::size_t c = j % kClasses;
        if (seen[j] && c != unknown) continue;
        for (const std::size_t from : order) {
            if (seen[j - c + from]) {
                coefficient(m, prefill, j) = coefficient(m, prefill, j - c + from);
                break;
            }
        }
    }
}

void fit_half(SpeedModel& m, const std::vector<FitRow>& rows, bool prefill,
              const std::string& leave_out) {
    const std::vector<Row> d = design(rows, prefill, leave_out);
    const std::size_t n = coefficient_count(prefill);
    const std::vector<double> theta = fit_robust(d, std::vector<bool>(n, true));
    for (std::size_t j = 0; j < n; ++j) coefficient(m, prefill, j) = theta[j];
    fill_unmeasured(m, d, prefill);
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
        if (const std::string why = fit_exclusion(m, p->hardware); !why.empty()) {
            ++skipped[why];
            continue;
        }
        const SpeedClass c = speed_class(p->hardware.gpus.front());
        rows.push_back(FitRow{&m, *run, std::move(*p), prefill, source_key(m.source), c, 0, 0});
    }
    return rows;
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
    SpeedModel model = fit(rows);
    for (FitRow& r : rows) r.in_sample = predicted(r, model);
    std::map<std::string, SpeedModel> loo;
    for (const FitRow& r : rows) {
        if (!loo.contains(r.source_key)) loo.emplace(r.source_key, fit(rows, r.source_key));
    }
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
    // FIT_SPEED_ROWS=1: every row's prediction, for looking into the misses.
    if (std::getenv("FIT_SPEED_ROWS") != nullptr) {
        for (const FitRow& r : rows) {
            std::cout << (r.prefill ? "pp" : "tg") << "," << speed_class_name(r.device_class) << ","
                      << r.m->model_id << "," << r.m->quant << "," << r.m->n_gpus << "x"
                      << r.m->gpu_id << "," << r.m->backend << "," << r.m->test << "," << r.m->date
                      << "," << r.m->tokens_per_second << "," << r.in_sample << ","
                      << r.out_of_sample << "\n";
        }
    }
    return 0;
}
