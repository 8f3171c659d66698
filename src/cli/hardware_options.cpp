#include "hardware_options.hpp"

#include <cstdlib>

#include "canitrun/fit.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/probe_sources.hpp"

namespace canitrun::cli {
namespace {

constexpr std::uint64_t kMaxLayerCount = 100000;

}  // namespace

DetectedSystem detect_this_machine() {
    if (const char* recording = std::getenv("CANITRUN_PROBE_RECORDING"); recording && *recording) {
        return detect_system(RecordedProbeSource(recording));
    }
    return detect_system(LiveProbeSource());
}

Result<std::optional<Hardware>> hardware_from_flags(const Database& db,
                                                    const HardwareFlags& flags) {
    if (flags.gpu.empty()) return std::optional<Hardware>{};
    Hardware h;
    if (flags.gpu == "auto") {
        h = hardware_from(detect_this_machine(), db);
    } else {
        CANITRUN_TRY_ASSIGN(auto gpus, parse_gpu_spec(db, flags.gpu));
        h.gpus = devices_for(gpus);
    }
    if (!flags.gpu_memory.empty()) {
        CANITRUN_TRY_ASSIGN(const Bytes memory, parse_gb(flags.gpu_memory));
        CANITRUN_TRY_ASSIGN(h, with_gpu_memory(std::move(h), memory));
    }
    if (!flags.ram.empty()) {
        CANITRUN_TRY_ASSIGN(auto ram, parse_gb(flags.ram));
        h.ram = ram;
    } else if (h.ram == 0) {
        // A named unified machine has no RAM beside its own memory: the CPU side keeps what the
        // GPU may not use. Anything else: the default.
        const Bytes host = unified_host_memory(h);
        h.ram = host != 0 ? host : kDefaultRamGb * kGB;
    }
    if (!flags.ram_bandwidth.empty()) {
        CANITRUN_TRY_ASSIGN(auto bw, parse_bandwidth(flags.ram_bandwidth));
        h.ram_bandwidth_gbps = bw;
    }
    return std::optional<Hardware>{h};
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
    return p;
}

}  // namespace canitrun::cli
