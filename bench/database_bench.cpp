// Loading the embedded database: parsing and validating every JSON file built into the binary
// (what each canitrun process does first).

#include <benchmark/benchmark.h>

#include "canitrun/database.hpp"

static void BM_LoadEmbeddedDatabase(benchmark::State& state) {
    for (auto _ : state) {
        auto db = canitrun::parse_database(canitrun::embedded_database_files());
        if (!db) state.SkipWithError(db.error().message.c_str());
        benchmark::DoNotOptimize(db);
    }
}
BENCHMARK(BM_LoadEmbeddedDatabase)->Unit(benchmark::kMillisecond);
