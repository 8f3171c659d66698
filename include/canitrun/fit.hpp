#pragma once
// Whether an estimate fits a GPU, natively or with CPU offload, and the questions built on
// that: the smallest GPU, the GPUs that run a model, the best quantization for a budget.
//
// The rules (the reference page's, documented in README "How the numbers are made"):
// - Native: total <= the card's marketed size taken as that many GB (10^9 bytes). That is why
//   24.1 GB does not fit a "24 GB" card. For unified memory the GPU may use only a share of it
//   (`unified_gpu_share_percent` in the data), so the budget is that share of the marketed size.
// - CPU offload: the card is too small, but it holds at least half of the total (below that the
//   run is mostly on the CPU, and we do not call it a GPU run), and what spills over
//   (total - budget) fits in system RAM (`ram`, 32 GB unless the user says otherwise).
//   Unified memory has nowhere to spill.
// - A quantization that needs a backend (NVFP4 needs CUDA) fits only GPUs that have it.

#include <cstdint>
#include <optional>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/database.hpp"
#include "canitrun/estimate.hpp"

namespace canitrun {

inline constexpr std::uint64_t kDefaultRamGb = 32;

enum class Fit { native, offload, no };

struct FitOptions {
    Bytes ram = kDefaultRamGb * kGB;  // system RAM for offload, bytes
    // --ram given: every board gets `ram`. Not given, a board gets what --gpu names it with
    // (default_ram: a unified-memory machine's own CPU side, else `ram`), so that `gpus` and
    // `--gpu` plan one machine alike.
    bool ram_given = false;
};

// The bytes the page's rule lets the model use on this GPU.
Bytes gpu_budget_bytes(const Gpu& gpu);

bool gpu_runs_quant(const Gpu& gpu, const Quant& quant);

Fit classify_fit(const Gpu& gpu, const Quant& quant, Bytes total, const FitOptions& options);

// Order for "the smallest GPU": smaller marketed VRAM first; among equals consumer before
// workstation before datacenter before unified; then higher bandwidth (the faster card); then
// name. This is also the order of every GPU list.
bool smaller_gpu_first(const Gpu& a, const Gpu& b);

struct GpuLists {
    std::vector<const Gpu*> native;
    std::vector<const Gpu*> offload;
};

GpuLists gpus_for(const std::vector<Gpu>& gpus, const Quant& quant, Bytes total,
                  const FitOptions& options);

const Gpu* smallest_gpu(const std::vector<Gpu>& gpus, const Quant& quant, Bytes total);

struct QuantChoice {
    const Quant* quant = nullptr;
    Estimate estimate;
};

// The highest-quality quantization whose total fits `budget` bytes (compared as the page
// does), optionally only those the GPU can run. Empty when none fits.
Result<std::optional<QuantChoice>> best_quant_for_budget(const Model& model,
                                                         const std::vector<const Quant*>& quants,
                                                         Bytes budget,
                                                         const EstimateOptions& options,
                                                         const Gpu* gpu = nullptr);

}  // namespace canitrun
