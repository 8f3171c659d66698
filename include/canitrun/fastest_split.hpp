#pragma once
// The fastest of the placements llama.cpp can express, on two GPUs. The planner's search finds
// the fewest layers or experts in RAM (a byte read from RAM is slower than one read from any
// GPU), with the split by memory or the first that fits; on two GPUs that differ (an RTX 4090
// beside a 3090) or where one holds the whole model, another split of the same units can be
// faster by the speed model: more of the reads on the faster card, or one card and no hand-over.
// This tries every split of the GPU units (and, with experts in RAM, every larger --n-cpu-moe)
// and keeps the fastest that fits, prefill speed breaking ties. Exact for the speed model on
// two GPUs (two alike ones need only one GPU alone tried: every split using both reads at the
// same speed) and on three or more (split_search.hpp: the least sum over the blocks that fit,
// judged from U + 1 placements). With experts in RAM it also tries a chosen set of layers'
// experts in RAM (-ot): the fastest set with its split, exact for the speed model
// (chosen_set.hpp), in place of the --n-cpu-moe steps it contains; where that search claims
// nothing, on two GPUs each GPU's run starting with the fewest expert-less layers it fits with,
// for every split (docs/METHOD.md, the search).

#include "canitrun/hardware_questions.hpp"

namespace canitrun {

// `found`: plan_placement's plan for `parts` with `given` (the user's options, with the rule's
// margin and runtime memory); returned unchanged when the user fixed the split, -ngl or
// --n-cpu-moe, or the hardware is not two or more discrete GPUs, or nothing is faster.
Result<Plan> fastest_plan(const Model& model, const Quant& quant, const ModelParts& parts,
                          const Hardware& hardware, const PlanSettings& settings,
                          const PlacementOptions& given, Plan found);

}  // namespace canitrun
