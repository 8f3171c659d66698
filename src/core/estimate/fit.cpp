#include "canitrun/fit.hpp"

#include <algorithm>

namespace canitrun {

Bytes gpu_budget_bytes(const Gpu& gpu) {
    const Bytes marketed = checked::mul(gpu.vram_gb, kGB);
    if (gpu.gpu_class != GpuClass::unified) return marketed;
    return checked::mul_div_floor(marketed, gpu.unified_gpu_share_permille, 1000);
}

bool gpu_runs_quant(const Gpu& gpu, const Quant& quant) {
    return quant.requires_backend.empty() || gpu.has_backend(quant.requires_backend);
}

Fit classify_fit(const Gpu& gpu, const Quant& quant, Bytes total, const FitOptions& options) {
    if (!gpu_runs_quant(gpu, quant)) return Fit::no;
    const Bytes budget = gpu_budget_bytes(gpu);
    if (total <= budget) return Fit::native;
    if (gpu.gpu_class == GpuClass::unified) return Fit::no;
    if (budget < total - total / 2) return Fit::no;  // less than half on the GPU
    const Bytes spill = total - budget;
    if (spill <= options.ram) return Fit::offload;
    return Fit::no;
}

bool smaller_gpu_first(const Gpu& a, const Gpu& b) {
    if (a.vram_gb != b.vram_gb) return a.vram_gb < b.vram_gb;
    if (a.gpu_class != b.gpu_class) return a.gpu_class < b.gpu_class;
    if (a.bandwidth_gbps != b.bandwidth_gbps) return a.bandwidth_gbps > b.bandwidth_gbps;
    return a.name < b.name;
}

GpuLists gpus_for(const std::vector<Gpu>& gpus, const Quant& quant, Bytes total,
                  const FitOptions& options) {
    GpuLists lists;
    for (const auto& gpu : gpus) {
        switch (classify_fit(gpu, quant, total, options)) {
            case Fit::native:
                lists.native.push_back(&gpu);
                break;
            case Fit::offload:
                lists.offload.push_back(&gpu);
                break;
            case Fit::no:
                break;
        }
    }
    const auto order = [](const Gpu* a, const Gpu* b) { return smaller_gpu_first(*a, *b); };
    std::sort(lists.native.begin(), lists.native.end(), order);
    std::sort(lists.offload.begin(), lists.offload.end(), order);
    return lists;
}

const Gpu* smallest_gpu(const std::vector<Gpu>& gpus, const Quant& quant, Bytes total) {
    const Gpu* best = nullptr;
    for (const auto& gpu : gpus) {
        if (classify_fit(gpu, quant, total, FitOptions{0}) != Fit::native) continue;
        if (best == nullptr || smaller_gpu_first(gpu, *best)) best = &gpu;
    }
    return best;
}

Result<std::optional<QuantChoice>> best_quant_for_budget(const Model& model,
                                                         const std::vector<const Quant*>& quants,
                                                         Bytes budget,
                                                         const EstimateOptions& options,
                                                         const Gpu* gpu) {
    std::optional<QuantChoice> best;
    for (const Quant* quant : quants) {
        if (gpu != nullptr && !gpu_runs_quant(*gpu, *quant)) continue;
        CANITRUN_TRY_ASSIGN(auto e, estimate(model, *quant, options));
        if (e.total() > budget) continue;
        if (!best || quant->quality_rank < best->quant->quality_rank) {
            best = QuantChoice{quant, e};
        }
    }
    return best;
}

}  // namespace canitrun
