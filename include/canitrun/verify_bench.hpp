#pragma once
// `canitrun verify` on llama-bench output: each measured row beside the speed model's prediction
// for the same model, quantization, GPUs and test (speed_check.hpp), as the log check does for
// memory.

#include <optional>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/llama_bench.hpp"
#include "canitrun/speed_check.hpp"

namespace canitrun {

struct BenchCheckRow {
    LlamaBenchRow row;
    std::string model_id;  // the database model matched by architecture size and parameters
    std::string quant_id;
    std::optional<double> predicted;  // tokens/s; empty: see `why`
    std::optional<double> band;       // the device class's out-of-sample error band
    std::string why;                  // why no prediction (unknown model, partial offload, ...)
};

struct BenchCheck {
    std::string format;  // of the output read
    std::string gpus;    // the hardware predicted for ("NVIDIA RTX 4090")
    std::vector<BenchCheckRow> rows;
    std::vector<std::string> notes;
};

// `gpus`: the hardware the benchmark ran on (--gpu); empty: from each row's gpu_info when it
// names a database GPU.
Result<BenchCheck> verify_llama_bench(const Database& db, const LlamaBenchOutput& bench,
                                      const std::vector<const Gpu*>& gpus);

}  // namespace canitrun
