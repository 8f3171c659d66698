// The core's one verdict (verdict.hpp) and the CLI's one exit status for it.

#include "canitrun/verdict.hpp"
#include "catch.hpp"
#include "command_result.hpp"

using namespace canitrun;

TEST_CASE("verdict: only a native plan runs, offload is an answer and not a fit") {
    CHECK(verdict_of(PlanKind::native) == Verdict::runs);
    for (const PlanKind k :
         {PlanKind::expert_offload, PlanKind::layer_offload, PlanKind::cpu_only, PlanKind::none}) {
        CHECK(verdict_of(k) == Verdict::does_not_run);
    }
    CHECK(verdict_of(std::optional<HardwareReport>{}) == Verdict::answered);
    HardwareReport asked;
    asked.selected.plan.kind = PlanKind::layer_offload;
    CHECK(verdict_of(std::optional<HardwareReport>{asked}) == Verdict::does_not_run);
}

TEST_CASE("verdict: the exit status is 1 exactly when it does not run") {
    CHECK(cli::exit_code(Verdict::answered) == 0);
    CHECK(cli::exit_code(Verdict::runs) == 0);
    CHECK(cli::exit_code(Verdict::does_not_run) == 1);
}
