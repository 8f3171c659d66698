#pragma once
// The longest context's search (hardware_questions.cpp, max_native_context and fit): the most
// 256-token steps at which a plan fits, each probe aimed by how much room the last ones left.

#include <cstdint>
#include <functional>
#include <optional>

#include "canitrun/error.hpp"

namespace canitrun {

// What one probe of a step count says: whether the plan fits (the verdict, the only thing the
// answer is made of), and its room (placement_room: the bytes left on the device that bounds
// it, negative where it is over), which only aims the next probe. No room: that probe aims
// nothing.
struct StepProbe {
    bool fits = false;
    std::optional<double> room;
};

using StepProber = std::function<Result<StepProbe>(std::uint64_t steps)>;

// The most steps in [1, last] at which `probe` fits, 0 when none does, for a probe that fits up
// to some count and at none past it: the answer a bisection over [0, last + 1] gives, whatever
// the rooms say. `first` (0: none) is probed first, then its neighbour on the side left open.
// Then each probe is aimed where the room reaches 0 (memory grows close to linearly with the
// context): by the line through the bracket's two ends once both were probed (regula falsi,
// Illinois: an end kept twice in a row counts half its room, so a bent room cannot stall the
// search at one end), else through the last two probes. A few aimed probes at most, then
// halving, as where a line does not fall or the rooms contradict the verdicts.
Result<std::uint64_t> longest_fitting_steps(std::uint64_t last, std::uint64_t first,
                                            const StepProber& probe);

}  // namespace canitrun
