#pragma once
// Published llama-bench measurements (validation/llama-bench.json, embedded in the binary): the
// speed model is fitted on them, checked against them, and a measured figure is shown beside an
// estimate for the same model, quantization and GPUs.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/speed_check.hpp"

namespace canitrun {

struct Measurement {
    std::string model_id;  // model_id, else nearest_model_id (a relative: same architecture)
    bool exact_model = false;
    std::string quant;   // canitrun quantization id ("FP16" for llama-bench's F16)
    std::string gpu_id;  // empty: the device is not in the database
    std::uint64_t n_gpus = 1;
    std::string backend;
    std::string test;  // "pp512", "tg128", "pp2048 @ d32768"
    std::uint64_t ngl = 99;
    // llama-bench's micro-batch: n_ubatch capped by n_batch (defaults 512 and 2048).
    std::uint64_t ubatch = 512;
    // llama-bench's fa column ("fa" in the file): none where the row does not say.
    std::optional<bool> flash_attn;
    double tokens_per_second = 0;
    // llama-bench's "size" column: the file's tensors in GiB (0: not given). A file can be larger
    // than its label's type: Unsloth's UD-Q8_K_XL prints as Q8_0 with more tensors upcast.
    double file_gib = 0;
    std::string build, date, source, note;
    bool outlier = false;  // flagged so by whoever copied it (its note)

    bool operator==(const Measurement&) const = default;
};

Result<std::vector<Measurement>> parse_measurements(std::string_view json_text);

// validation/llama-bench.json as the build read it (src/snapshot/make_measurements.cpp writes
// the rows as C++, so a start parses no JSON: parsing the file took about half of a --gpu
// query's time).
const std::vector<Measurement>& embedded_measurements();

// The run a measurement describes, on the database's entries; an error names what is missing
// (a model, GPU or quantization not in the database, a partial offload, a CPU run).
Result<BenchRun> bench_run_for(const Database& db, const Measurement& m);

// Why the speed fit leaves a measurement out (empty: it is fitted), for the model and on the
// hardware its run predicts with.
std::string fit_exclusion(const Measurement& m, const Model& model, const Hardware& hardware);

// Measurements of exactly this model at this quantization on these GPUs (same ids, same count).
// embedded_measurements_for: the same of embedded_measurements(), through an index by model
// built once, not a walk over every row (an answer asks it a few times).
std::vector<const Measurement*> embedded_measurements_for(const std::string& model_id,
                                                          const std::string& quant_id,
                                                          const std::vector<const Gpu*>& gpus);
std::vector<const Measurement*> measurements_for(const std::vector<Measurement>& all,
                                                 const std::string& model_id,
                                                 const std::string& quant_id,
                                                 const std::vector<const Gpu*>& gpus);

}  // namespace canitrun
