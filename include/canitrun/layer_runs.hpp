#pragma once
// What place() adds up over a run of whole layers on one device (their weights, caches, what a
// token reads of them), and the running sums of it over a model's layers, kept for a search
// that places the same parts many times: a run's sums are then two lookups rather than a walk
// over its layers (the walk was most of place()'s instructions on unlike GPUs, 22,400
// placements a `fit`; bench/RESULTS.md).

#include <cstdint>
#include <vector>

#include "canitrun/model_parts.hpp"

namespace canitrun {

// The sums over some layers; every term is a sum of non-negative byte counts or a count.
struct LayerRunSums {
    Bytes kv_cache = 0;
    Bytes sliding_kv = 0;  // the sliding-window layers' KV cache
    Bytes recurrent_state = 0;
    Bytes weights = 0;
    Bytes active_weights = 0;
    Bytes active_experts = 0;  // the routed experts' part of active_weights
    std::uint64_t moe_layers = 0;
    std::uint64_t mla_layers = 0;
};

// The routed experts' part of what a token reads of a layer (the rest of it is read whole).
// Throws OverflowError where a layer reads less than its non-routed weights.
Bytes active_routed_of(const LayerPart& layer);

// The sums over layers [from, to) of `parts`, layer by layer with checked additions: throws
// OverflowError exactly where adding them one by one would.
LayerRunSums sum_layers(const ModelParts& parts, std::uint64_t from, std::uint64_t to);

// Running sums over every layer of one set of parts. Kept only where the sums over all the
// layers do not overflow (nor any layer's active_routed_of): every term is non-negative, so no
// run's sum overflows then, and a run's sums are the difference of two running sums, equal to
// sum_layers'. Where not kept (or made empty), place() walks the layers.
class LayerRuns {
  public:
    LayerRuns() = default;
    explicit LayerRuns(const ModelParts& parts);

    // Whether the running sums are kept for parts of `layers` layers.
    bool kept_for(std::uint64_t layers) const { return running_.size() == layers + 1; }
    // The sums over layers [from, to); only where kept_for(the parts' layers).
    LayerRunSums between(std::uint64_t from, std::uint64_t to) const;

  private:
    std::vector<LayerRunSums> running_;  // running_[i]: the sums over layers [0, i)
};

}  // namespace canitrun
