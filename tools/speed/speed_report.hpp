#pragma once
// fit_speed's outputs: the generated coefficients source and docs/SPEED.md's error tables.

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "canitrun/measurements.hpp"
#include "canitrun/speed_check.hpp"

namespace canitrun::tools {

struct FitRow {
    const Measurement* m = nullptr;
    BenchRun run;
    BenchPrediction prediction;
    bool prefill = false;
    std::string source_key;
    SpeedClass device_class = SpeedClass::unknown;
    std::vector<double> features;  // the time per token of each coefficient at 1 (fit_speed)
    double fixed = 0;              // the time per token of the stated (unfitted) terms
    double in_sample = 0;          // predicted tokens/s, fitted on every row
    double out_of_sample = 0;      // predicted tokens/s, fitted without this row's source
};

// |predicted / measured - 1|
double abs_error(double predicted, double measured);
// max(predicted / measured, measured / predicted) - 1: the error a band is measured in, so a
// band past 100 % reads as "within N×" both ways.
double fold_error(double predicted, double measured);
// The q-quantile (0..1) of `v`, by the nearest rank; 0 for none.
double quantile(std::vector<double> v, double q);

// Each class's 80th-percentile fold error out of sample, each run weighing one, and its run
// counts (`unknown` gets the
// figures over every run), the bands' coverage on sources they did not see, and the
// out-of-sample error over every run.
void set_bands(SpeedModel& model, const std::vector<FitRow>& rows);
std::string describe_fit(const std::vector<FitRow>& rows, std::size_t all_rows);

void write_fit_source(std::ostream& out, const SpeedModel& model);
// docs/SPEED.md's "Known limits" section (speed_limits.cpp).
void write_known_limits(std::ostream& out);
// Its second half: the terms tried on the fit, kept or not (speed_trials.cpp).
void write_fit_trials(std::ostream& out);
// The decode terms tried on AMD's, GeForce's and Pascal's left-out clusters
// (speed_trials_decode.cpp).
void write_decode_cluster_trials(std::ostream& out);
// Prompt terms tried on the runs past prefill's p90 (speed_trials_prefill.cpp).
void write_prefill_p90_trials(std::ostream& out);
// Its part on a prompt's attention rate beyond its FLOPs (speed_trials_prefill.cpp).
void write_attention_rate_trials(std::ostream& out);
void write_lone_expert_sort_trials(std::ostream& out);
// The MI50's (GCN) prompts: its rows' build and BF16 rate (speed_trials_gcn.cpp).
void write_gcn_trials(std::ostream& out);
void write_speed_report(std::ostream& out, const SpeedModel& model, const std::vector<FitRow>& rows,
                        const std::map<std::string, int>& skipped, std::size_t sources);

}  // namespace canitrun::tools
