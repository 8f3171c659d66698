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

// llama-bench's test names: "pp512" (512 prompt tokens), "tg128" (128 generated), "pp512+tg128"
// (both, one rate over all tokens), "pp512 @ d4096" (after 4096 tokens in the cache); older
// builds print "pp 512".
struct BenchTest {
    std::uint64_t n_prompt = 0;
    std::uint64_t n_gen = 0;
    std::uint64_t depth = 0;
};
Result<BenchTest> parse_bench_test(std::string_view text);

struct BenchRun {
    const Model* model = nullptr;
    const Quant* quant = nullptr;
    std::vector<const Gpu*> gpus;  // empty: CPU only; several: llama.cpp's default layer split
    BenchTest test;
    std::uint64_t ubatch = 512;
};

struct BenchPrediction {
    double tokens_per_s = 0;
    SpeedWork decode, prefill;  // what the test's tokens ask of each device
    Hardware hardware;
};

// Every layer on the GPUs (llama-bench -ngl 99), the KV cache sized for the test's tokens.
Result<BenchPrediction> predict_bench(const BenchRun& run,
                                      const SpeedModel& m = fitted_speed_model());

}  // namespace canitrun
