// Loading the database: the embedded binary snapshot (what each canitrun process does first) and,
// for comparison, parsing and validating the JSON files (what the build does once, and what
// `--data DIR` does at every start).

#include <benchmark/benchmark.h>

#include "canitrun/database.hpp"
#include "canitrun/embedded_snapshot.hpp"

static void BM_LoadEmbeddedDatabase(benchmark::State& state) {
    for (auto _ : state) {
        auto db = canitrun::load_embedded_database();
        if (!db) state.SkipWithError(db.error().message.c_str());
        benchmark::DoNotOptimize(db);
    }
    state.counters["snapshot_bytes"] =
        static_cast<double>(canitrun::embedded_database_snapshot().size());
}
BENCHMARK(BM_LoadEmbeddedDatabase)->Unit(benchmark::kMillisecond);

static void BM_ParseDatabaseJson(benchmark::State& state) {
    for (auto _ : state) {
        auto db = canitrun::parse_database(canitrun::embedded_database_files());
        if (!db) state.SkipWithError(db.error().message.c_str());
        benchmark::DoNotOptimize(db);
    }
}
BENCHMARK(BM_ParseDatabaseJson)->Unit(benchmark::kMillisecond);
