#pragma once
// How fast a placement runs, from bandwidth and compute, with the assumptions stated.
//
// Decode is memory-bound: each token reads the active weights (routed experts at top-k over
// experts) and the whole KV cache once. Layers run one after another, so the time per token is
// the sum over devices of the bytes read there over that device's effective bandwidth
// (peak x efficiency). Prefill is compute-bound: 2 FLOPs per active parameter per token at the
// GPUs' fp16 tensor throughput (their FP32 rate where higher: Pascal, Apple M1/M2) x efficiency;
// weights kept in system RAM cross PCIe once per 512-token micro-batch.

#include <optional>

#include "canitrun/hardware.hpp"
#include "canitrun/placement.hpp"

namespace canitrun {

struct SpeedAssumptions {
    // Share of peak memory bandwidth llama.cpp's decode reaches on a GPU. llama.cpp PR #3776
    // (CUDA, 7B F16, 12.55 GiB read per token) measured 54.67 tokens/s = 737 GB/s, 73 % of an
    // RTX 4090's 1008 GB/s; smaller models reach less.
    double gpu_bandwidth_efficiency = 0.70;
    // Share of peak RAM bandwidth CPU decode reaches (dual-channel desktops measure 55-65 % in
    // llama-bench); an assumption, stated with every figure.
    double ram_bandwidth_efficiency = 0.60;
    // Share of dense fp16 tensor throughput prefill reaches: llama.cpp PR #7860 measured an
    // RTX 3090 at 3491 tokens/s on an 8B Q6_K (56 TFLOPS of its 71).
    double gpu_compute_efficiency = 0.80;
    double pcie_gbps = 25.0;  // PCIe 4.0 x16 as measured by bandwidthTest (~25 of 32 GB/s)
    std::uint64_t ubatch = 512;
};

struct Speed {
    double decode_tokens_per_s = 0;
    std::optional<double> prefill_tokens_per_s;  // empty: no GPU to compute on
    SpeedAssumptions assumptions;
};

// `active_params`: the parameters one token multiplies by (the model's published active count).
Speed estimate_speed(const Placement& placement, const Hardware& hardware,
                     std::uint64_t active_params, const SpeedAssumptions& assumptions = {});

}  // namespace canitrun
