#include "canitrun/speed.hpp"

#include <algorithm>
#include <iterator>

#include "canitrun/llamacpp_rules.hpp"

namespace canitrun {
namespace {

// The matrix throughput prefill gets: the FP16 tensor rate, or the FP32 rate where that is
// higher (Pascal's FP16 runs at 1/64; M1/M2 publish only FP32).
double prefill_tflops(const GpuDevice& device) {
    return std::max(device.fp16_tflops, device.fp32_tflops);
}

bool busy(const DeviceWork& w) {
    return w.read_bytes > 0 || w.layers > 0;
}

}  // namespace

SpeedClass speed_class(const GpuDevice& device) {
    if (device.gpu == nullptr) return SpeedClass::unknown;
    const Gpu& g = *device.gpu;
    if (g.vendor == "apple") return SpeedClass::apple;
    if (g.vendor == "intel") return SpeedClass::intel;
    if (g.vendor == "amd")
        return g.gpu_class == GpuClass::unified ? SpeedClass::amd_apu : SpeedClass::amd;
    if (g.vendor == "nvidia") {
        if (g.gpu_class == GpuClass::datacenter) return SpeedClass::nvidia_datacenter;
        if (g.gpu_class == GpuClass::unified) return SpeedClass::nvidia_unified;
        if (g.gpu_class == GpuClass::workstation) return SpeedClass::nvidia_workstation;
        return SpeedClass::nvidia;
    }
    return SpeedClass::unknown;
}

namespace {

// One table for the class's id (JSON, the fitted source) and its words (text).
struct SpeedClassNames {
    SpeedClass c;
    const char* name;
    const char* words;
};
constexpr SpeedClassNames kSpeedClassNames[] = {
    {SpeedClass::nvidia, "nvidia", "NVIDIA GeForce GPUs"},
    {SpeedClass::nvidia_workstation, "nvidia_workstation", "NVIDIA workstation GPUs"},
    {SpeedClass::nvidia_datacenter, "nvidia_datacenter", "NVIDIA datacenter GPUs"},
    {SpeedClass::nvidia_unified, "nvidia_unified", "NVIDIA unified-memory machines (DGX Spark)"},
    {SpeedClass::amd, "amd", "AMD discrete GPUs"},
    {SpeedClass::amd_apu, "amd_apu", "AMD APUs (Ryzen AI Max)"},
    {SpeedClass::apple, "apple", "Apple silicon"},
    {SpeedClass::intel, "intel", "Intel GPUs"},
    {SpeedClass::unknown, "unknown", "GPUs of any kind"},
};
constexpr bool in_enum_order() {
    for (int i = 0; i < kSpeedClassCount; ++i) {
        if (static_cast<int>(kSpeedClassNames[i].c) != i) return false;
    }
    return true;
}
static_assert(std::size(kSpeedClassNames) == kSpeedClassCount && in_enum_order(),
              "one row per SpeedClass, in the enum's order");

const SpeedClassNames& names_of(SpeedClass c) {
    return kSpeedClassNames[static_cast<int>(c)];
}

}  // namespace

const char* speed_class_name(SpeedClass c) {
    return names_of(c).name;
}

const char* speed_class_words(SpeedClass c) {
    return names_of(c).words;
}

double decode_seconds(const SpeedWork& work, const Hardware& hardware, const SpeedModel& m) {
    double seconds = 0;
    std::uint64_t used = 0;
    for (std::size_t d = 0; d < work.gpus.size() && d < hardware.gpus.size(); ++d) {
        const DeviceWork& w = work.gpus[d];
        if (!busy(w)) continue;
        const GpuDevice& device = hardware.gpus[d];
        if (device.bandwidth_gbps <= 0) return 0;  // unknown bandwidth: no figure
        const SpeedClassCoefficients& c = m.of(speed_class(device));
        seconds += w.read_bytes / (device.bandwidth_gbps * 1e9) * c.bandwidth +
                   static_cast<double>(w.layers) * c.layer_s +
                   static_cast<double>(w.moe_layers) * m.moe_layer_s;
        ++used;
    }
    if (used > 1) seconds += static_cast<double>(used - 1) * m.gpu_hop_s;
    if (work.ram.read_bytes > 0) {
        if (hardware.ram_bandwidth_gbps <= 0) return 0;
        seconds +=
            work.ram.read_bytes / (hardware.ram_bandwidth_gbps * 1e9 * m.ram_bandwidth_efficiency);
    }
    return seconds;
}

std::optional<double> prefill_seconds(const SpeedWork& work, const Hardware& hardware,
                                      const SpeedModel& m, std::uint64_t ubatch) {
    if (hardware.gpus.empty() || ubatch == 0) return std::nullopt;
    const auto batch = static_cast<double>(ubatch);
    double seconds = 0;
    for (std::size_t d = 0; d < work.gpus.size() && d < hardware.gpus.size(); ++d) {
        const DeviceWork& w = work.gpus[d];
        if (!busy(w)) continue;
        const GpuDevice& device = hardware.gpus[d];
        const double tflops = prefill_tflops(device);
        if (tflops <= 0 || device.bandwidth_gbps <= 0) return std::nullopt;
        const SpeedClassCoefficients& c = m.of(speed_class(device));
        seconds +=
            w.dense_flops / (tflops * 1e12) * (work.float_weights ? c.compute_float : c.compute) +
            w.expert_flops / (tflops * 1e12) * c.expert_compute +
            w.attention_flops / (tflops * 1e12) * m.attention_compute +
            w.resident_bytes / (device.bandwidth_gbps * 1e9) / batch * m.weight_reread +
            static_cast<double>(w.layers) * c.prefill_layer_s / batch;
    }
    if (busy(work.ram) || work.ram.resident_bytes > 0) {
        // llama.cpp runs RAM-held layers of a large batch on the first GPU, copying their weights
        // over PCIe once per micro-batch.
        const GpuDevice& device = hardware.gpus.front();
        const double tflops = prefill_tflops(device);
        if (tflops <= 0) return std::nullopt;
        const SpeedClassCoefficients& c = m.of(speed_class(device));
        seconds += work.ram.dense_flops / (tflops * 1e12) *
                       (work.float_weights ? c.compute_float : c.compute) +
                   work.ram.expert_flops / (tflops * 1e12) * c.expert_compute +
                   work.ram.attention_flops / (tflops * 1e12) * m.attention_compute +
                   work.ram.resident_bytes / (m.pcie_gbps * 1e9) / batch;
    }
    if (seconds <= 0) return std::nullopt;
    return seconds;
}

Speed estimate_speed(const Model& model, const Quant& quant, const Placement& placement,
                     const Hardware& hardware, std::uint64_t context, std::uint64_t ubatch,
                     std::uint64_t n_seq, const SpeedModel& m) {
    Speed s;
    s.ubatch = ubatch;
    // llama.cpp keeps token_embd in RAM whatever runs where: only layers or experts there count.
    s.offloaded =
        placement.ram.active_weights > 0 || placement.ram.weights > placement.ram.embedding;
    if (!hardware.gpus.empty()) s.device_class = speed_class(hardware.gpus.front());
    const double empty =
        decode_seconds(speed_work(model, quant, placement, context, {0, 128}), hardware, m);
    if (empty > 0) s.decode_tokens_per_s = 1.0 / empty;
    const std::uint64_t own = llama_sequence_context(context, n_seq);
    if (own > 1) {
        const double full =
            decode_seconds(speed_work(model, quant, placement, context, {own - 1, 1}), hardware, m);
        if (full > 0) s.decode_at_context = 1.0 / full;
    }
    const auto prefill = prefill_seconds(speed_work(model, quant, placement, context, {0, 512}),
                                         hardware, m, ubatch);
    if (prefill) s.prefill_tokens_per_s = 1.0 / *prefill;
    if (!s.offloaded && !hardware.gpus.empty()) {
        const SpeedClassCoefficients& c = m.of(s.device_class);
        if (c.decode_rows > 0) s.decode_band = c.decode_band_loo;
        if (c.prefill_rows > 0) s.prefill_band = c.prefill_band_loo;
    }
    return s;
}

}  // namespace canitrun
