#include "canitrun/verdict.hpp"

namespace canitrun {

Verdict verdict_of(PlanKind kind) {
    return kind == PlanKind::native ? Verdict::runs : Verdict::does_not_run;
}

Verdict verdict_of(const std::optional<HardwareReport>& asked) {
    return asked ? verdict_of(asked->selected.plan.kind) : Verdict::answered;
}

}  // namespace canitrun
