// One estimate (Qwen 3.5 35B-A3B, Q4_K_M, 8k context), and the full model report behind
// `canitrun qwen3.5-35b-a3b` (every quantization, the matrix, the GPU lists).

#include <benchmark/benchmark.h>

#include "canitrun/database.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/report.hpp"

namespace {

const canitrun::Database& database() {
    static const canitrun::Database db =
        canitrun::parse_database(canitrun::embedded_database_files()).value();
    return db;
}

}  // namespace

static void BM_OneEstimate(benchmark::State& state) {
    const auto& db = database();
    const canitrun::Model* model = db.find_model("qwen3.5-35b-a3b").value();
    const canitrun::Quant* quant = db.find_quant("Q4_K_M").value();
    for (auto _ : state) {
        auto e = canitrun::estimate(*model, *quant, canitrun::EstimateOptions{});
        benchmark::DoNotOptimize(e);
    }
}
BENCHMARK(BM_OneEstimate);

static void BM_ModelReport(benchmark::State& state) {
    const auto& db = database();
    const canitrun::Model* model = db.find_model("qwen3.5-35b-a3b").value();
    for (auto _ : state) {
        auto r = canitrun::build_model_report(db, *model, canitrun::ReportOptions{});
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_ModelReport)->Unit(benchmark::kMicrosecond);
