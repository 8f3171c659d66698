#pragma once
// How fast a placement runs: a small model of llama.cpp's decode and prefill whose coefficients
// are fitted to published llama-bench measurements (validation/llama-bench.json) by
// tools/speed/fit_speed, with the error each device class showed on them (docs/SPEED.md).
//
// Decode (one token) runs the layers one after another, so its time is the sum over devices of
//   read bytes / bandwidth x a   (a = 1 / the share of peak bandwidth reached)
// + layers x k + MoE layers x m  (kernel launches, routing: what dominates small and MoE models)
// + (GPUs - 1) x h               (the hand-over between devices of a layer split)
// where the read bytes are the active weights (routed experts at top-k over experts) and the KV
// cache up to the current depth. Layers in system RAM read at RAM bandwidth x its efficiency.
// Prefill (per prompt token, in micro-batches of ubatch tokens) is
//   dense FLOPs / throughput x p + expert FLOPs / throughput x x + attention FLOPs / throughput x t
// + resident weights / bandwidth / ubatch x r  (each micro-batch reads every weight once)
// + layers x q / ubatch
// on each GPU, where dense FLOPs are 2 per active non-expert parameter plus attention at the
// depth, expert FLOPs 2 per active routed-expert parameter (spread over many small matmuls at
// batch 512), and throughput the device's FP16 tensor rate (FP32 where higher). Weights held in
// RAM cross PCIe once per micro-batch. p differs for float (FP16/BF16) and quantized weights.
// a, k, p, q, x are per device class; m, h, r, t are shared.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/hardware.hpp"
#include "canitrun/model.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

// Devices that share a speed behaviour (and a measured error band).
enum class SpeedClass {
    nvidia,              // NVIDIA GeForce cards
    nvidia_workstation,  // RTX A6000, RTX 6000 Ada, RTX PRO 6000 ...: FP16 with FP32 accumulate
                         // at the full rate GeForce halves, so the same work at a higher figure
    nvidia_datacenter,   // A100, H100, H200, B200, L40S, ...
    nvidia_unified,      // DGX Spark (GB10), Jetson: NVIDIA with LPDDR shared memory
    amd,                 // Radeon and Instinct discrete cards
    amd_apu,             // Ryzen AI Max (Strix Halo) and other AMD unified memory
    apple,               // Apple silicon (Metal)
    intel,               // Arc
    unknown,             // a --vram budget or an unrecognised device: NVIDIA consumer figures
};
inline constexpr int kSpeedClassCount = 9;

SpeedClass speed_class(const GpuDevice& device);
const char* speed_class_name(SpeedClass c);   // "nvidia_datacenter"
const char* speed_class_words(SpeedClass c);  // "NVIDIA datacenter GPUs"

// Per device class. Times in seconds; `bandwidth` and `compute` are multipliers on the ideal
// time (1 / the share of peak reached).
struct SpeedClassCoefficients {
    double bandwidth = 1 / 0.7;      // a
    double layer_s = 0;              // k: decode seconds per layer
    double compute = 1 / 0.5;        // p: quantized weights (dequantized, or int8 dot products)
    double compute_float = 1 / 0.5;  // p for 16- and 32-bit float weights (plain GEMM)
    double prefill_layer_s = 0;      // q: prefill seconds per layer per micro-batch
    double expert_compute = 1;       // x: multiplier on the routed experts' ideal FLOP time
    // |relative error| that 80 % of the measured runs stayed within, in and out of sample
    // (leave one source out); 0 with no measurement of this class.
    double decode_band = 0, prefill_band = 0;
    double decode_band_loo = 0, prefill_band_loo = 0;
    std::uint64_t decode_rows = 0, prefill_rows = 0;  // measurements behind the fit
};

struct SpeedModel {
    SpeedClassCoefficients classes[kSpeedClassCount];
    double moe_layer_s = 0;        // m
    double gpu_hop_s = 0;          // h
    double weight_reread = 1;      // r
    double attention_compute = 1;  // multiplier on the attention products' ideal FLOP time
    // Not fitted (no measurement offloads): stated assumptions.
    double ram_bandwidth_efficiency = 0.6;  // dual-channel desktops measure 55-65 % in llama-bench
    double pcie_gbps = 25.0;  // PCIe 4.0 x16 as measured by bandwidthTest (~25 of 32 GB/s)
    std::string source;       // what the coefficients were fitted on

    const SpeedClassCoefficients& of(SpeedClass c) const { return classes[static_cast<int>(c)]; }
};

// The coefficients fitted by tools/speed/fit_speed (src/core/plan/speed_fit.cpp).
const SpeedModel& fitted_speed_model();

// What one token asks of one device.
struct DeviceWork {
    double read_bytes = 0;       // decode: active weights here + their KV up to the depth
    double resident_bytes = 0;   // prefill: weights held here, read once per micro-batch
    double dense_flops = 0;      // 2 x active non-expert params here
    double attention_flops = 0;  // the attention products against the cached positions
    double expert_flops = 0;     // 2 x active routed-expert params here
    std::uint64_t layers = 0;
    std::uint64_t moe_layers = 0;
};

struct SpeedWork {
    std::vector<DeviceWork> gpus;  // one per Hardware::gpus
    DeviceWork ram;                // layers (or experts) in system RAM
    bool float_weights = false;    // 16- or 32-bit float weights: prefill multiplies them as is
};

// Whether a quantization keeps weights as 16- or 32-bit floats (FP16, BF16, FP32).
bool is_float_quant(const Quant& quant);

// Where the tokens are: llama-bench's pp512 is 512 prompt tokens at depth 0, tg128 128 decoded
// tokens, "pp512 @ d4096" the same after 4096 tokens already in the cache.
struct SpeedPoint {
    std::uint64_t depth = 0;
    std::uint64_t tokens = 1;
};

// `context`: the context the placement's KV cache was sized for.
SpeedWork speed_work(const Model& model, const Quant& quant, const Placement& placement,
                     std::uint64_t context, const SpeedPoint& point);

struct Speed {
    double decode_tokens_per_s = 0;              // at an empty cache (llama-bench tg128)
    std::optional<double> decode_at_context;     // with the cache full to the planned context
    std::optional<double> prefill_tokens_per_s;  // empty: no GPU, or no throughput figure
    // The |relative error| 80 % of measured runs of this device class stayed within, out of
    // sample; empty where no measurement covers the class or the placement (offload).
    std::optional<double> decode_band, prefill_band;
    SpeedClass device_class = SpeedClass::unknown;  // of the first GPU (the slowest decides)
    bool offloaded = false;  // part of the model in RAM: the RAM and PCIe terms are assumptions
    std::uint64_t ubatch = 512;
};

double decode_seconds(const SpeedWork& work, const Hardware& hardware, const SpeedModel& m);
// Seconds per prompt token; empty when a device doing work has no throughput figure.
std::optional<double> prefill_seconds(const SpeedWork& work, const Hardware& hardware,
                                      const SpeedModel& m, std::uint64_t ubatch);

// One stream: decode at depth 0 and with its sequence's cache full, prefill of a 512-token
// prompt, with the error bands. `context` is the whole cache's tokens; of `n_seq` sequences one
// fills context / n_seq of them, and reads only its own.
Speed estimate_speed(const Model& model, const Quant& quant, const Placement& placement,
                     const Hardware& hardware, std::uint64_t context, std::uint64_t ubatch = 512,
                     std::uint64_t n_seq = 1, const SpeedModel& m = fitted_speed_model());

}  // namespace canitrun
