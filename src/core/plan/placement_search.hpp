#pragma once
// What the two exact split searches hold while they place one block at a time: the chosen-set
// search over two or more GPUs (chosen_set.cpp) and the many-GPU split search (split_search.cpp).
// Private to src/core/plan.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "canitrun/plan_settings.hpp"
#include "canitrun/speed.hpp"
#include "canitrun/split_search.hpp"

namespace canitrun {

struct PlacementSearch {
    const Model& model;
    const Quant& quant;
    const ModelParts& parts;
    const Hardware& hardware;
    const PlanSettings& settings;
    const PlacementOptions& options;  // what every placement of the search starts from
    std::uint64_t units = 0;          // the -ngl units the split shares out
    std::size_t gpus = 0;
    // The options a placement is made with: one copy for the whole search, its split (and set)
    // written per placement (copying the options for each was a tenth of a search's
    // instructions).
    mutable PlacementOptions scratch = options;
    // The parts' running sums, made once for the search's many placements.
    const LayerRuns runs = LayerRuns(parts);

    // With the starting options' --n-cpu-moe set (a search that never changes it).
    Result<Placement> at(const std::vector<std::uint64_t>& split) const {
        scratch.tensor_split = split;
        return place(parts, hardware, scratch, runs);
    }
    // With this set of layers' experts in RAM (-ot): a search that sets it for every placement.
    Result<Placement> at(const std::vector<std::uint64_t>& split,
                         std::vector<std::uint64_t> set) const {
        scratch.cpu_moe_set = std::move(set);
        return at(split);
    }

    std::vector<std::uint64_t> block(std::size_t d, std::uint64_t b, std::uint64_t e) const {
        return block_split(gpus, units, d, b, e);
    }

    Speed speed_of(const Placement& p) const {
        return estimate_speed(model, quant, p, hardware, settings.estimate.context, settings.ubatch,
                              settings.n_seq);
    }
};

}  // namespace canitrun
