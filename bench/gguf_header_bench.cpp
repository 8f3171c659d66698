// How long reading a GGUF header takes on a 100 GB file: the data section is a hole (sparse
// file), so the benchmark shows that only the header is touched. ~1000 tensor infos, the
// metadata a converted model carries, and a variant with a 150k-token vocabulary.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "canitrun/gguf.hpp"
#include "canitrun/gguf_files.hpp"
#include "support/gguf_writer.hpp"

namespace {

using canitrun::test::GgufWriter;

// The sparse files go when the benchmark ends.
struct TempFiles {
    std::vector<std::filesystem::path> paths;
    ~TempFiles() {
        std::error_code ec;
        for (const auto& p : paths) std::filesystem::remove(p, ec);
    }
};
TempFiles temp_files;

std::string write_model(const std::string& name, std::uint64_t vocab) {
    const auto path = std::filesystem::temp_directory_path() / name;
    temp_files.paths.push_back(path);
    GgufWriter w;
    w.str("general.architecture", "llama");
    w.str("general.name", "benchmark 100 GB");
    w.u32("llama.block_count", 125);
    w.u32("llama.context_length", 131072);
    w.u32("llama.embedding_length", 8192);
    w.u32("llama.attention.head_count", 64);
    w.u32("llama.attention.head_count_kv", 8);
    w.u32("llama.feed_forward_length", 28672);
    if (vocab > 0) {
        std::vector<std::string> tokens;
        tokens.reserve(vocab);
        for (std::uint64_t k = 0; k < vocab; ++k) tokens.push_back("token" + std::to_string(k));
        w.str_array("tokenizer.ggml.tokens", tokens);
    }
    // 1000 tensors of 8192 x 6400 f16 values (104,857,600 bytes each): 104.9 GB of data.
    for (int k = 0; k < 1000; ++k) {
        w.tensor("blk." + std::to_string(k / 8) + ".w" + std::to_string(k % 8), {8192, 6400}, 1);
    }
    w.write_sparse_file(path.string());
    return path.string();
}

void read_header(benchmark::State& state, const std::string& path) {
    std::uint64_t touched = 0;
    std::uint64_t size = 0;
    for (auto _ : state) {
        auto src = canitrun::open_file_source(path);
        if (!src) state.SkipWithError(src.error().message.c_str());
        auto file = canitrun::read_gguf(**src);
        if (!file) state.SkipWithError(file.error().message.c_str());
        benchmark::DoNotOptimize(file->tensors.size());
        touched = (*src)->bytes_read();
        size = (*src)->size();
    }
    state.counters["file_GB"] = static_cast<double>(size) / 1e9;
    state.counters["bytes_read"] = static_cast<double>(touched);
}

void BM_GgufHeader100GB(benchmark::State& state) {
    static const std::string path = write_model("canitrun_bench_100gb.gguf", 0);
    read_header(state, path);
}
BENCHMARK(BM_GgufHeader100GB)->Unit(benchmark::kMicrosecond);

void BM_GgufHeader100GBWithVocab(benchmark::State& state) {
    static const std::string path = write_model("canitrun_bench_100gb_vocab.gguf", 150000);
    read_header(state, path);
}
BENCHMARK(BM_GgufHeader100GBWithVocab)->Unit(benchmark::kMicrosecond);

}  // namespace
