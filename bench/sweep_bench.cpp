// The full sweep: every model x every quantization x the page's contexts (8k, 32k, 128k, 256k,
// each capped at the model's native context) estimated, and each total classified against every
// GPU (native, offload or no). Target: under 50 ms.

#include <benchmark/benchmark.h>

#include "canitrun/database.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/report.hpp"

static void BM_FullSweep(benchmark::State& state) {
    const canitrun::Database db =
        canitrun::parse_database(canitrun::embedded_database_files()).value();
    std::uint64_t cells = 0;
    for (auto _ : state) {
        std::uint64_t native = 0, offload = 0;
        cells = 0;
        for (const auto& model : db.models) {
            for (const std::uint64_t context : canitrun::matrix_contexts(model)) {
                canitrun::EstimateOptions options;
                options.context = context;
                for (const auto& quant : db.quants) {
                    const auto e = canitrun::estimate(model, quant, options);
                    if (!e) continue;
                    const canitrun::Bytes total = e->total();
                    for (const auto& gpu : db.gpus) {
                        switch (canitrun::classify_fit(gpu, quant, total, canitrun::FitOptions{})) {
                            case canitrun::Fit::native:
                                ++native;
                                break;
                            case canitrun::Fit::offload:
                                ++offload;
                                break;
                            case canitrun::Fit::no:
                                break;
                        }
                        ++cells;
                    }
                }
            }
        }
        benchmark::DoNotOptimize(native);
        benchmark::DoNotOptimize(offload);
    }
    state.counters["fit_checks"] = static_cast<double>(cells);
}
BENCHMARK(BM_FullSweep)->Unit(benchmark::kMillisecond);
