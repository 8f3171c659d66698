#pragma once
// The fastest -ot set of layers' experts in RAM with its --tensor-split on two or more GPUs,
// exact for the speed model (issue #32, "The best plan, not just a plan"). fastest_plan
// (fastest_split.hpp) asks it where the planner keeps experts in RAM.
//
// The space: every unit (the n layers and the output head) on the GPUs (-ngl 99), any split of
// the units into one block per GPU in stack order (-ts, zeros allowed), and any set of layers
// whose routed experts stay in RAM (-ot "blk\.(...)\.ffn_.*_exps\.=CPU"); --n-cpu-moe k is the
// set of the first k layers, so its placements are among them. Why a dynamic program over the
// GPUs is exact, and cheap:
// - decode seconds are a sum over devices (speed.cpp's decode_seconds): each busy GPU's terms
//   are linear in its DeviceWork, one hand-over per GPU used past the first, and the RAM's
//   terms linear in its own; a device's work is a sum over what it holds (speed_work.cpp, over
//   totals that no placement of the same units changes). Taking a layer's experts to RAM moves
//   its routed part (bytes read, weights, the MoE layer's fixed cost) from its GPU to the RAM
//   and changes nothing else, so a placement's decode is its split's with every layer whole
//   plus, per layer in the set, a term of the layer's kind and its GPU (RAM's seconds less the
//   GPU's for that part), independent of where else the set lies;
// - what GPU d holds (placement.cpp) is its block's layers' bytes less the routed experts of
//   those in the set, plus a term fixed per GPU (compute buffer, runtime, what the server
//   holds) that depends only on whether the block is empty and whether it holds the head, and
//   on GPU 0 also on the largest routed-expert tensor in RAM (the prompt batch's copy, op
//   offload). Layers of one kind (same routed experts, active part and largest tensor) are
//   interchangeable within a block: which of them are in the set changes neither any device's
//   bytes nor any speed term. So per block only a count per kind matters, and the cheapest
//   counts that fit the block (the fewest that free its excess, each kind enumerated) are found
//   per block alone: GPU d's fit reads nothing of the other blocks, given GPU 0's copy;
// - GPU 0's copy is fixed by an outer loop over the largest tensor allowed in RAM (one pass per
//   distinct tensor size, the kinds above it left out), GPU 0 judged with that copy: the
//   fastest placement whose largest is t is found, fitting as it is, in the pass for t;
// - so, as split_search.hpp's program, the least sum of GPUs 0..d holding units [0, e) is the
//   least over the starts b of that of GPUs 0..d-1 holding [0, b) plus GPU d's block [b, e) at
//   its cheapest counts: GPUs x U^2 / 2 blocks, each judged by arithmetic, from U + 1
//   placements (every block's bytes and works are differences of suffixes) and a few per kind.
// Prefill seconds, summed the same way, break ties. Where the RAM cannot hold the set found
// (no placement is then known to be the fastest) or the model's buffers vary with the block
// (the quick rule's percentage, DeepSeek Sparse Attention's leaves), the search does not claim
// the answer (`exact` false) and fastest_plan keeps its --n-cpu-moe search.

#include <optional>

#include "canitrun/plan_settings.hpp"

namespace canitrun {

struct ChosenSetSearch {
    bool exact = false;              // the search ran over its whole space
    std::optional<Placement> found;  // its fastest placement that fits, where one does
};

// `given`: the planner's options (margin, runtime, what the server holds); its -ngl, --n-cpu-moe,
// set and split are replaced. Not exact (and nothing found) on fewer than two GPUs, on
// unified memory, or where a device's bandwidth is unknown.
Result<ChosenSetSearch> fastest_chosen_set(const Model& model, const Quant& quant,
                                           const ModelParts& parts, const Hardware& hardware,
                                           const PlanSettings& settings,
                                           const PlacementOptions& given);

}  // namespace canitrun
