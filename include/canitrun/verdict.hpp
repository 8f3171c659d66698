#pragma once
// The one verdict every answer carries (issue #35): whether the hardware asked about runs what
// was asked. The CLI maps it to its exit status in one place (command_result.hpp exit_code);
// the core decides it, so two commands asked the same question cannot disagree.

#include <optional>

#include "canitrun/hardware_report.hpp"

namespace canitrun {

enum class Verdict {
    answered,      // no hardware was asked about: the answer is the page, the list
    runs,          // it runs whole on the hardware asked about
    does_not_run,  // it does not, or only with offload (the answer says which)
};

// A plan's verdict: only a native plan runs; offload is an answer, not a fit.
Verdict verdict_of(PlanKind kind);

// The verdict of a model (or file) page: answered without --gpu, else its plan's.
Verdict verdict_of(const std::optional<HardwareReport>& asked);

// A yes/no answer (a budget, a cluster, a list that must not be empty).
inline Verdict verdict_of_fit(bool fits) {
    return fits ? Verdict::runs : Verdict::does_not_run;
}

}  // namespace canitrun
