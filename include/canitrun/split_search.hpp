#pragma once
// The fastest --tensor-split on three or four GPUs, exact for the speed model (issue #32, "The
// best plan, not just a plan"). fastest_plan (fastest_split.hpp) asks it for each --n-cpu-moe it
// tries; two GPUs keep their own search there (every split, units + 1 placements).
//
// Why an enumeration over block ends is exact, and cheap:
// - the speed model is a sum over devices (speed.cpp, decode_seconds and prefill_seconds): each
//   busy GPU adds terms of its own DeviceWork only, plus one hand-over per GPU used past the
//   first, and the RAM adds its own;
// - a GPU's DeviceWork is linear in the units it holds (speed_work.cpp: bytes, layers and FLOPs
//   summed over its share, the FLOP shares over totals that a split does not change), so the
//   work of the block [b, e) is the work of [b, U) less the work of [e, U): U + 1 placements
//   give every block's work;
// - what a GPU holds (placement.cpp) depends only on its own block, and only grows with it, so
//   for each GPU and block start the last block end that fits is found by one walk (two
//   pointers) over the starts, about 2U placements per middle GPU;
// - every split whose blocks all fit is then judged with the speed model's own functions, in a
//   walk cut short by a floor (branch and bound): the RAM's seconds, the blocks placed so far
//   and each unit after them at the GPU that reads it fastest, with no hand-over, is never above
//   any split that completes them, so a walk past the best in hand cannot win.
// When every GPU is alike (same card, memory and speed figures, nothing placed beside the model
// per GPU), a split's speed depends only on how many GPUs it uses (each reads at the same
// speed), so the fewest GPUs that hold the units win: each GPU filled in turn, from GPU 0 (which
// also holds the prompt-batch copies of op offload, so it is never roomier than another) or
// from GPU 1 with GPU 0 left empty. That takes a few binary searches, which keeps `fit` over
// the whole database fast on 3x RTX 3090.

#include <limits>
#include <optional>

#include "canitrun/plan_settings.hpp"

namespace canitrun {

// The most GPUs split_search enumerates (the enumeration grows as units^(GPUs - 2)).
inline constexpr std::size_t kMaxSearchedGpus = 4;

// The fastest placement (decode, then prefill) of the `options`' -ngl and --n-cpu-moe units over
// 3 to kMaxSearchedGpus discrete GPUs by any --tensor-split of unit counts that fits every device;
// empty when none fits, when the hardware has another number of GPUs, or when a GPU's
// bandwidth is unknown (no speed to compare). `beat_decode_seconds`: the decode seconds of a
// plan already in hand; where a floor under every split's (the RAM's own seconds, each unit at
// its fastest GPU, no hand-over) is above it, nothing is enumerated and nothing returned.
Result<std::optional<Placement>> fastest_many_gpu_split(
    const Model& model, const Quant& quant, const ModelParts& parts, const Hardware& hardware,
    const PlanSettings& settings, const PlacementOptions& options,
    double beat_decode_seconds = std::numeric_limits<double>::infinity());

}  // namespace canitrun
