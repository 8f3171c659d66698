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
        auto gpus = parse_gpu_spec(db, flags.gpu);
        if (!gpus) return std::unexpected(gpus.error());
        h.gpus = devices_for(*gpus);
    }
    if (!flags.ram.empty()) {
        auto ram = parse_gb(flags.ram);
        if (!ram) return std::unexpected(ram.error());
        h.ram = *ram;
    } else if (h.ram == 0) {
        h.ram = kDefaultRamGb * kGB;
    }
    if (!flags.ram_bandwidth.empty()) {
        auto bw = parse_bandwidth(flags.ram_bandwidth);
        if (!bw) return std::unexpected(bw.error());
        h.ram_bandwidth_gbps = *bw;
    }
    return std::optional<Hardware>{h};
}

Result<PlacementOptions> placement_from_flags(const HardwareFlags& flags) {
    PlacementOptions p;
    if (!flags.ngl.empty()) {
        auto n = parse_count(flags.ngl, "--ngl", kMaxLayerCount);
        if (!n) return std::unexpected(n.error());
        p.gpu_layers = *n;
    }
    if (!flags.n_cpu_moe.empty()) {
        auto n = parse_count(flags.n_cpu_moe, "--n-cpu-moe", kMaxLayerCount);
        if (!n) return std::unexpected(n.error());
        p.cpu_moe_layers = *n;
    }
    return p;
}

}  // namespace canitrun::cli
