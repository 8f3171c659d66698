#include "canitrun/speed.hpp"

#include <algorithm>

namespace canitrun {
namespace {

// The matrix throughput prefill gets: the FP16 tensor rate, or the FP32 rate where that is
// higher (Pascal's FP16 runs at 1/64; M1/M2 publish only FP32).
double prefill_tflops(const GpuDevice& device) {
    return std::max(device.fp16_tflops, device.fp32_tflops);
}

}  // namespace

Speed estimate_speed(const Placement& placement, const Hardware& hardware,
                     std::uint64_t active_params, const SpeedAssumptions& a) {
    Speed s;
    s.assumptions = a;
    double decode_seconds = 0;
    double gpu_read = 0;
    for (std::size_t d = 0; d < placement.gpus.size(); ++d) {
        const auto bytes = static_cast<double>(placement.gpus[d].read_per_token);
        gpu_read += bytes;
        if (bytes > 0) {
            decode_seconds +=
                bytes / (hardware.gpus[d].bandwidth_gbps * 1e9 * a.gpu_bandwidth_efficiency);
        }
    }
    const auto ram_read = static_cast<double>(placement.ram.read_per_token);
    if (ram_read > 0) {
        decode_seconds +=
            ram_read / (hardware.ram_bandwidth_gbps * 1e9 * a.ram_bandwidth_efficiency);
    }
    if (decode_seconds > 0) s.decode_tokens_per_s = 1.0 / decode_seconds;

    // Prefill: the GPUs compute every layer, each its share of the work (by bytes read).
    const double all_read = gpu_read + ram_read;
    if (hardware.gpus.empty() || all_read <= 0) return s;
    const double flops_per_token = 2.0 * static_cast<double>(active_params);
    double prefill_seconds = 0;
    for (std::size_t d = 0; d < placement.gpus.size(); ++d) {
        const double part = static_cast<double>(placement.gpus[d].read_per_token) / all_read;
        const double tflops = prefill_tflops(hardware.gpus[d]);
        if (part > 0 && tflops <= 0) return s;  // unknown throughput: no prefill figure
        if (part > 0)
            prefill_seconds += flops_per_token * part / (tflops * 1e12 * a.gpu_compute_efficiency);
    }
    if (ram_read > 0) {
        // RAM-resident layers run on GPU 0 for a batch, their weights copied over PCIe.
        const double tflops = prefill_tflops(hardware.gpus.front());
        if (tflops <= 0) return s;
        prefill_seconds +=
            flops_per_token * (ram_read / all_read) / (tflops * 1e12 * a.gpu_compute_efficiency);
        prefill_seconds += static_cast<double>(placement.ram.weights) / (a.pcie_gbps * 1e9) /
                           static_cast<double>(a.ubatch);
    }
    if (prefill_seconds > 0) s.prefill_tokens_per_s = 1.0 / prefill_seconds;
    return s;
}

}  // namespace canitrun
