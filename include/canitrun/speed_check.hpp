#pragma once
// A llama-bench test predicted by the speed model: the one function the fit
// (tools/speed/fit_speed), the accuracy test over validation/llama-bench.json and
// `canitrun verify` on llama-bench output all use, so the figure checked is the figure printed.

#include <cstdint>
#include <string_view>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/speed.hpp"

namespace canitrun {

// A llama-bench test: "pp512" (512 prompt tokens), "tg128" (128 generated), "pp512+tg128"
// (both, one rate over all tokens), "pp512 @ d4096" (after 4096 tokens in the cache).
struct BenchTest {
    std::uint64_t n_prompt = 0;
    std::uint64_t n_gen = 0;
    std::uint64_t depth = 0;
};

// The largest test the speed model predicts: prompt or generated tokens, and depth.
inline constexpr std::uint64_t kMaxBenchTestTokens = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kMaxBenchTestDepth = std::uint64_t{1} << 26;

// A test from its token counts (llama-bench's json and csv fields n_prompt, n_gen, n_depth):
// some prompt or generated tokens, none past the limits above.
Result<BenchTest> bench_test(std::uint64_t n_prompt, std::uint64_t n_gen, std::uint64_t depth);

// A test from its name, as llama-bench's table prints it ("pp512", "pp512+tg128 @ d4096";
// builds before mid 2024 print "pp 512"): the one reader of test names, for the table reader
// (parse_llama_bench), the published measurements and the fit. Each count is above 0, the
// prompt part comes first, and the counts pass bench_test.
Result<BenchTest> parse_bench_test(std::string_view text);

struct BenchRun {
    const Model* model = nullptr;
    const Quant* quant = nullptr;
    std::vector<const Gpu*> gpus;  // empty: CPU only; several: llama.cpp's default layer split
    BenchTest test;
    std::uint64_t ubatch = 512;
    // llama.cpp built before 2025, before its prompt kernels' rework (MMQ on tensor cores for
    // every type, fused MoE, flash attention by default): prefill runs at an era's efficiency.
    bool older_build = false;
    // llama.cpp's CUDA backend before b3216 (llama.cpp#8075): a quantized prompt's products ran
    // as FP16 cuBLAS GEMMs on weights converted each micro-batch (SpeedWork::cublas_quantized).
    bool cublas_quantized = false;
    // llama.cpp's CUDA backend from llama.cpp#19165 (2026-01-29) to #21472 (2026-04-05): each
    // decoded token's CUDA graph check cost CPU time per graph node
    // (SpeedModel::graph_check_layer_s).
    bool graph_node_check = false;
    // llama.cpp's ROCm (HIP) backend before llama.cpp#22254 (April 2026), which built it without
    // HIP graphs by default: each decoded token's kernels were launched one by one from the host
    // (SpeedModel::hip_launch_layer_s).
    bool hip_no_graphs = false;
    // The model file's bytes as llama-bench printed them (0: not known): the weights are read at
    // this size, not the label's (BenchRun from a Measurement's file_gib).
    double file_bytes = 0;
};

struct BenchPrediction {
    double tokens_per_s = 0;
    SpeedWork decode, prefill;  // what the test's tokens ask of each device
    Hardware hardware;
    // The prompt's micro-batch: llama.cpp cuts a prompt into micro-batches of at most n_ubatch
    // tokens, so pp512 at -ub 2048 runs one micro-batch of 512.
    std::uint64_t ubatch = 512;
};

// Whether llama-bench's -ngl N put every layer and the output head on the GPUs, as
// predict_bench assumes. llama.cpp offloads the last N of a model's n_layer + 1 slots, the output
// head the last (src/llama-model.cpp: i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0)), so N
// must reach n_layer + 1: -ngl 99 does for any model of up to 98 layers, while -ngl 116 on Llama
// 3.1 405B (126 layers) keeps its first 11 in RAM.
bool bench_all_on_gpus(std::uint64_t ngl, const Model& model);

// Every layer on the GPUs (llama-bench -ngl 99), the KV cache sized for the test's tokens.
Result<BenchPrediction> predict_bench(const BenchRun& run,
                                      const SpeedModel& m = fitted_speed_model());

}  // namespace canitrun
