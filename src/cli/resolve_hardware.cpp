// The hardware flags resolved (part of resolve(), request.hpp): --gpu, --gpu-spec, --gpu-memory,
// --ram-bandwidth and the placement flags.

#include "hardware_options.hpp"

#include <cstdlib>

#include "canitrun/bounded_file.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/gpu_description.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/probe_sources.hpp"

namespace canitrun::cli {
namespace {

constexpr std::uint64_t kMaxLayerCount = 100000;
constexpr std::uint64_t kMaxSplitShare = 1000000;

// "3,1" or "40,41": whole numbers, as llama.cpp's proportions (unit counts place exactly).
Result<std::vector<std::uint64_t>> parse_tensor_split(const std::string& text) {
    std::vector<std::uint64_t> split;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string part =
            text.substr(start, comma == std::string::npos ? comma : comma - start);
        CANITRUN_TRY_ASSIGN(auto n, parse_count(part, "--tensor-split", kMaxSplitShare));
        split.push_back(n);
        if (split.size() > 64) {
            return fail(ErrorKind::bad_input, "--tensor-split gives more than 64 proportions",
                        "give one proportion per GPU, as in --tensor-split 3,1");
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return split;
}

}  // namespace

DetectedSystem detect_this_machine(const Database& db) {
    if (const char* recording = std::getenv("CANITRUN_PROBE_RECORDING"); recording && *recording) {
        return detect_system(RecordedProbeSource(recording), db);
    }
    return detect_system(LiveProbeSource(), db);
}

Result<std::optional<Hardware>> hardware_from_flags(const Database& db, const HardwareFlags& flags,
                                                    std::optional<Bytes> ram) {
    if (flags.gpu.empty()) return std::optional<Hardware>{};
    Hardware h;
    if (flags.gpu == "auto") {
        const DetectedSystem system = detect_this_machine(db);
        CANITRUN_TRY(detected_one_machine(system, db));
        h = hardware_from(system, db);
    } else {
        CANITRUN_TRY_ASSIGN(auto selection, select_gpus(db, flags.gpu));
        h.gpus = devices_for(selection.gpus);
        h.notes = std::move(selection.notes);
    }
    if (!flags.gpu_memory.empty()) {
        CANITRUN_TRY_ASSIGN(const Bytes memory, parse_gb(flags.gpu_memory));
        CANITRUN_TRY_ASSIGN(h, with_gpu_memory(std::move(h), memory));
    }
    if (ram) {
        h.ram = *ram;
    } else if (h.ram == 0) {
        h.ram = default_ram(h);
    }
    if (!flags.ram_bandwidth.empty()) {
        CANITRUN_TRY_ASSIGN(auto bw, parse_bandwidth(flags.ram_bandwidth));
        h.ram_bandwidth_gbps = bw;
    }
    return std::optional<Hardware>{h};
}

std::expected<std::vector<Gpu>, std::vector<Error>> described_gpus(const HardwareFlags& flags) {
    std::vector<Gpu> gpus;
    std::vector<Error> problems;
    for (const std::string& path : flags.gpu_specs) {
        auto text = read_bounded_file(path, kMaxGpuDescriptionBytes, "--gpu-spec file");
        if (!text) {
            problems.push_back(text.error());
            continue;
        }
        auto gpu = parse_gpu_description(*text, path);
        if (!gpu) {
            problems.insert(problems.end(), gpu.error().begin(), gpu.error().end());
            continue;
        }
        gpus.push_back(std::move(*gpu));
    }
    if (!problems.empty()) return std::unexpected(std::move(problems));
    return gpus;
}

Result<PlacementOptions> placement_from_flags(const HardwareFlags& flags) {
    PlacementOptions p;
    if (!flags.ngl.empty()) {
        CANITRUN_TRY_ASSIGN(auto n, parse_count(flags.ngl, "--ngl", kMaxLayerCount));
        p.gpu_layers = n;
    }
    if (!flags.n_cpu_moe.empty()) {
        CANITRUN_TRY_ASSIGN(auto n, parse_count(flags.n_cpu_moe, "--n-cpu-moe", kMaxLayerCount));
        p.cpu_moe_layers = n;
    }
    if (flags.cpu_moe) {
        if (p.cpu_moe_layers) {
            return fail(ErrorKind::bad_input, "--cpu-moe and --n-cpu-moe both move experts",
                        "give --cpu-moe (every layer's) or --n-cpu-moe N (the first N layers')");
        }
        p.cpu_moe_layers = kMaxLayerCount;  // the placement keeps it to the model's layers
    }
    if (!flags.tensor_split.empty()) {
        CANITRUN_TRY_ASSIGN(p.tensor_split, parse_tensor_split(flags.tensor_split));
    }
    return p;
}

}  // namespace canitrun::cli
