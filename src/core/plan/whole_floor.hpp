#pragma once
// Whether a floor already rules out a whole plan before its per-layer parts are built: the
// cheapest check of the best-quantization searches (best_native, best_in_ram). Private to
// src/core/plan.

#include <array>
#include <cstdint>

#include "canitrun/hardware.hpp"
#include "canitrun/model.hpp"
#include "canitrun/model_parts.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/plan_settings.hpp"

namespace canitrun {

// What every native placement of `parts` keeps on the GPUs beside the weights and the
// runtime: each layer's KV cache and recurrent state (place(): all layers are on the GPUs, and
// the caches go with their layers unless --no-kv-offload keeps them in RAM). They are the
// model's and the context's, never the quantization's (llamacpp_parts_at_context sets them
// from the model and the options alone), so one quantization's parts give every other's.
Bytes gpu_caches(const ModelParts& parts, const PlacementOptions& options);

// Whether no whole plan (native on the GPUs; without a GPU, everything in RAM) of a quantization
// can fit: no such plan needs less than its floor. One per model and settings, asked of each
// quantization a search tries: what the devices may hold (whole_room) is worked out once.
// `device_elements`: the model's layout's (Database::device_elements), where known, so that the
// floor builds no layout. The references must outlive it.
class WholeFloor {
  public:
    WholeFloor(const Model& model, const Hardware& hardware, const PlanSettings& settings,
               const std::array<std::uint64_t, 5>* device_elements = nullptr);
    // `caches`: gpu_caches() of another quantization of the model at the same settings, or 0
    // where none is known (on a machine without a GPU it is not counted).
    Result<bool> rules_out(const Quant& quant, Bytes caches = 0) const;

  private:
    const Model& model_;
    const Hardware& hardware_;
    const PlanSettings& settings_;
    const std::array<std::uint64_t, 5>* elements_;
    Bytes room_ = 0;
};

}  // namespace canitrun
