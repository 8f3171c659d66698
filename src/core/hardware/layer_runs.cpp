#include "canitrun/layer_runs.hpp"

namespace canitrun {
namespace {

// `sums` with layer `l` added, by checked additions.
void add_layer(LayerRunSums& sums, const LayerPart& l) {
    if (l.kind == LayerKind::mla) ++sums.mla_layers;
    sums.kv_cache = checked::add(sums.kv_cache, l.kv_cache);
    if (l.kind == LayerKind::sliding) sums.sliding_kv = checked::add(sums.sliding_kv, l.kv_cache);
    sums.recurrent_state = checked::add(sums.recurrent_state, l.recurrent_state);
    sums.weights = checked::add(sums.weights, l.weights);
    sums.active_weights = checked::add(sums.active_weights, l.active_weights);
    sums.active_experts = checked::add(sums.active_experts, active_routed_of(l));
    if (l.routed_experts > 0) ++sums.moe_layers;
}

}  // namespace

Bytes active_routed_of(const LayerPart& layer) {
    return layer.routed_experts == 0
               ? 0
               : checked::sub(layer.active_weights, layer.weights - layer.routed_experts);
}

LayerRunSums sum_layers(const ModelParts& parts, std::uint64_t from, std::uint64_t to) {
    LayerRunSums sums;
    for (std::uint64_t i = from; i < to; ++i) add_layer(sums, parts.layers[i]);
    return sums;
}

LayerRuns::LayerRuns(const ModelParts& parts) {
    running_.reserve(parts.layers.size() + 1);
    running_.emplace_back();
    const bool summed = overflow_or(
        [&] {
            for (const LayerPart& l : parts.layers) {
                LayerRunSums next = running_.back();
                add_layer(next, l);
                running_.push_back(next);
            }
            return true;
        },
        false);
    if (!summed) running_.clear();  // place() walks the layers, and throws where it overflows
}

LayerRunSums LayerRuns::between(std::uint64_t from, std::uint64_t to) const {
    const LayerRunSums& a = running_[from];
    const LayerRunSums& b = running_[to];
    return LayerRunSums{b.kv_cache - a.kv_cache,
                        b.sliding_kv - a.sliding_kv,
                        b.recurrent_state - a.recurrent_state,
                        b.weights - a.weights,
                        b.active_weights - a.active_weights,
                        b.active_experts - a.active_experts,
                        b.moe_layers - a.moe_layers,
                        b.mla_layers - a.mla_layers};
}

}  // namespace canitrun
