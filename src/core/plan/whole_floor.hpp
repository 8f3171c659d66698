#pragma once
// Whether a floor already rules out a whole plan before its per-layer parts are built: the
// cheapest check of the best-quantization searches (best_native, best_in_ram). Private to
// src/core/plan.

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

// Whether no whole plan (native on the GPUs; without a GPU, everything in RAM) of `quant` can
// fit: no such plan needs less than its floor. `caches`: gpu_caches() of another quantization
// of the model at the same settings, or 0 where none is known (on a machine without a GPU it is
// not counted).
Result<bool> cannot_fit_whole(const Model& model, const Quant& quant, const Hardware& hardware,
                              const PlanSettings& settings, Bytes caches = 0);

}  // namespace canitrun
