#include "canitrun/speculative_speed.hpp"

#include <cmath>

#include "canitrun/plan_settings.hpp"
#include "canitrun/speed.hpp"

namespace canitrun {

double speculative_tokens_per_s(double target, double draft, double acceptance,
                                std::uint64_t draft_max) {
    if (target <= 0 || draft <= 0) return 0;
    const auto g = static_cast<double>(draft_max);
    const double tokens =
        acceptance >= 1 ? g + 1 : (1 - std::pow(acceptance, g + 1)) / (1 - acceptance);
    return tokens / (g / draft + 1 / target);
}

Result<std::optional<SpeculativeSpeed>> speculative_speed(const Hardware& hardware,
                                                          const PlanSettings& settings,
                                                          double target_tokens_per_s) {
    const auto& draft = settings.server.draft;
    if (!draft || target_tokens_per_s <= 0) return std::optional<SpeculativeSpeed>{};
    const PlanSettings s = draft_settings(settings);
    CANITRUN_TRY_ASSIGN(const Placement p, companion_placement(*draft, hardware, s, false));
    const Speed alone = estimate_speed(*draft->model, *draft->quant, p, hardware,
                                       s.estimate.context, s.ubatch, s.n_seq);
    if (alone.decode_tokens_per_s <= 0) return std::optional<SpeculativeSpeed>{};
    SpeculativeSpeed out;
    out.target_tokens_per_s = target_tokens_per_s;
    out.draft_tokens_per_s = alone.decode_tokens_per_s;
    out.tokens_per_s = speculative_tokens_per_s(target_tokens_per_s, out.draft_tokens_per_s,
                                                out.acceptance, out.draft_max);
    return std::optional<SpeculativeSpeed>{out};
}

}  // namespace canitrun
