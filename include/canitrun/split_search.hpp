#pragma once
// The fastest --tensor-split on three or more GPUs, exact for the speed model (issue #32, "The
// best plan, not just a plan"). fastest_plan (fastest_split.hpp) asks it for each --n-cpu-moe it
// tries; two GPUs keep their own search there (every split, units + 1 placements).
//
// Why a dynamic program over block ends is exact, and cheap:
// - the speed model is a sum over devices (speed.cpp, decode_seconds and prefill_seconds): each
//   busy GPU adds terms of its own DeviceWork only, plus one hand-over per GPU used past the
//   first, and the RAM adds its own;
// - a GPU's DeviceWork is linear in the units it holds (speed_work.cpp: bytes, layers and FLOPs
//   summed over its share, the FLOP shares over totals that a split does not change), so the
//   work of the block [b, e) is the work of [b, U) less the work of [e, U): U + 1 placements
//   give every block's work;
// - what a GPU holds (placement.cpp) depends only on its own block, and only grows with it, so
//   for each GPU and block start the last block end that fits is found by one walk (two
//   pointers) over the starts the GPUs before it reach, at most about 2U placements per middle
//   GPU;
// - a split's decode seconds are then the RAM's, plus per busy GPU its block's own terms and one
//   hand-over, less one hand-over: a sum of one term per GPU over consecutive blocks. So the
//   least sum of GPUs 0..d holding units [0, e) is the least over the starts b of that of GPUs
//   0..d-1 holding [0, b) plus GPU d's block [b, e) (a shortest path over GPUs in stack order),
//   with prefill seconds, also a sum per GPU, breaking ties. The terms are linear in the work,
//   so a block's are the difference of two sums of each unit's own terms on that GPU (U x GPUs
//   evaluations): about GPUs x U^2 / 2 blocks judged by two subtractions each, whatever the
//   number of GPUs (an enumeration of every split grows as U^(GPUs - 2)). A floor
//   (the RAM's seconds, each unit after a block at the GPU that reads it fastest, no
//   hand-over) drops the blocks that cannot beat the plan in hand (branch and bound).
// When every GPU is alike (same card, memory and speed figures, nothing placed beside the model
// per GPU), a split's speed depends only on how many GPUs it uses (each reads at the same
// speed), so the fewest GPUs that hold the units win: each GPU filled in turn, from GPU 0 (which
// also holds the prompt-batch copies of op offload, so it is never roomier than another) or
// from GPU 1 with GPU 0 left empty. That takes a few binary searches, which keeps `fit` over
// the whole database fast on 3x RTX 3090.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "canitrun/plan_settings.hpp"

namespace canitrun {

// The --tensor-split of unit counts over `gpus` GPUs where GPU d holds the units [b, e) of
// `units`: those before b go to GPU 0 and those from e on to the last GPU. The searches place
// one block at a time this way (what the other GPUs then hold is not read).
std::vector<std::uint64_t> block_split(std::size_t gpus, std::uint64_t units, std::size_t d,
                                       std::uint64_t b, std::uint64_t e);

// The fastest placement (decode, then prefill) of the `options`' -ngl and --n-cpu-moe units over
// three or more discrete GPUs by any --tensor-split of unit counts that fits every device;
// empty when none fits, when the hardware has fewer than three GPUs, or when a GPU's
// bandwidth is unknown (no speed to compare). `beat_decode_seconds`: the decode seconds of a
// plan already in hand; where a floor under every split's (the RAM's own seconds, each unit at
// its fastest GPU, no hand-over) is above it, nothing is enumerated and nothing returned.
Result<std::optional<Placement>> fastest_many_gpu_split(
    const Model& model, const Quant& quant, const ModelParts& parts, const Hardware& hardware,
    const PlanSettings& settings, const PlacementOptions& options,
    double beat_decode_seconds = std::numeric_limits<double>::infinity());

}  // namespace canitrun
