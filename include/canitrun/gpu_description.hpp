#pragma once
// A GPU the database lacks, described by the user in a JSON file (--gpu-spec FILE): its name,
// memory, memory bandwidth, FP16 rate, vendor, and whether its memory is unified. The format is
// docs/schema/gpu-spec.schema.json; this reader keeps the same rules and names every problem,
// one Error each, so a file with three mistakes is fixed in one round.
//
//   {"name": "Radeon AI PRO R9700", "vendor": "amd", "memory_gb": 32,
//    "bandwidth_gbps": 644.6, "fp16_tflops": 191, "unified": false}

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/gpu.hpp"

namespace canitrun {

// The file a --gpu-spec reads is a few hundred bytes; past this it is not a description.
inline constexpr std::uint64_t kMaxGpuDescriptionBytes = 64ULL << 10;

// The described GPU as a database entry: `id` (given, or made from the name) and the name as it
// is typed in --gpu and --host; memory_gb is the vendor's "GB" read as GiB, as GDDR, HBM and
// LPDDR capacities are (memory_bytes gives the driver's exact figure instead); backends by
// vendor. `file` names the file in the problems.
std::expected<Gpu, std::vector<Error>> parse_gpu_description(const std::string& text,
                                                             const std::string& file);

// The database with the described GPUs added. One whose id or name the database (or an earlier
// description) already answers is refused: name yours otherwise, or use the database's entry.
Result<Database> with_described_gpus(Database db, const std::vector<Gpu>& gpus);

}  // namespace canitrun
