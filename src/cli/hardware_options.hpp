#pragma once
// The hardware flags (--gpu NAME|SPEC|auto, --gpu-spec FILE, --ram, --ram-bandwidth, --ngl,
// --n-cpu-moe, --cpu-moe, --tensor-split) turned into the core's Hardware and PlacementOptions.

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/detect.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/placement.hpp"

namespace canitrun::cli {

struct HardwareFlags {
    std::string gpu;                     // "RTX 4090", "2x3090", "4090,3090", "auto"
    std::vector<std::string> gpu_specs;  // --gpu-spec FILE: GPUs the database lacks, described
    std::string ram;
    std::string ram_bandwidth;
    std::string gpu_memory;  // --gpu-memory GB: a unified GPU's usable memory
    std::string ngl;
    std::string n_cpu_moe;
    bool cpu_moe = false;      // --cpu-moe: every layer's routed experts in RAM
    std::string tensor_split;  // --tensor-split 3,1: one proportion per GPU
    std::string split_mode;    // --split-mode layer|row|tensor (llama.cpp -sm)
};

// What detection found on this machine. CANITRUN_PROBE_RECORDING=DIR replays a recording
// instead (tests/fixtures/probe/README.md), for tests and bug reports.
DetectedSystem detect_this_machine(const Database& db);

// Empty when no --gpu was given. `ram`: --ram in bytes, else the machine's or default_ram.
Result<std::optional<Hardware>> hardware_from_flags(const Database& db, const HardwareFlags& flags,
                                                    std::optional<Bytes> ram);

Result<PlacementOptions> placement_from_flags(const HardwareFlags& flags);

// The GPUs the --gpu-spec files describe (gpu_description.hpp), in the order given; every
// problem of every file when any is wrong.
std::expected<std::vector<Gpu>, std::vector<Error>> described_gpus(const HardwareFlags& flags);

}  // namespace canitrun::cli
