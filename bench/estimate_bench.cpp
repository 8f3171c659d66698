// One estimate (Qwen 3.5 35B-A3B, Q4_K_M, 8k context), and the full model report behind
// `canitrun qwen3.5-35b-a3b` (every quantization, the matrix, the GPU lists).

#include <benchmark/benchmark.h>

#include "canitrun/database.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/hardware_questions.hpp"
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

// What `canitrun fit --gpu "RTX 4090"` computes: every model's best native quantization, its
// longest context and its speed on the card.
static void BM_FitOneGpu(benchmark::State& state) {
    const auto& db = database();
    const canitrun::Gpu* gpu = db.find_gpu("rtx-4090").value();
    canitrun::Hardware hardware;
    hardware.gpus.push_back(canitrun::device_for(*gpu));
    hardware.ram = 32ULL * 1000 * 1000 * 1000;
    for (auto _ : state) {
        auto fits = canitrun::models_that_fit(db, hardware, canitrun::PlanSettings{});
        if (!fits) state.SkipWithError(fits.error().message.c_str());
        benchmark::DoNotOptimize(fits);
    }
}
BENCHMARK(BM_FitOneGpu)->Unit(benchmark::kMicrosecond);
