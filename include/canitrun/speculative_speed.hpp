#pragma once
// Speculative decoding's decode speed with a draft model (--draft), as a stated assumption:
// no published measurement backs a band, so none is given. Each step the draft proposes up to
// --spec-draft-n-max tokens (common_params_speculative_draft::n_max = 3 at 0ad4a86,
// common/common.h line 326; a mainline common.h read earlier had 16 under --draft-max, which
// 0ad4a86's common/arg.cpp line 4383 refuses as removed) and the target checks them in one
// batch; with a per-token acceptance a the step yields (1 - a^(g+1)) / (1 - a) tokens on
// average (Leviathan, Kalman, Matias 2023, "Fast Inference from Transformers via Speculative
// Decoding", eq. 1) and costs g draft steps and one target step (a batch of g + 1 tokens read
// the weights once, as a decoded token does). llama.cpp stops a draft early below
// --spec-draft-p-min, 0.0 by default at 0ad4a86 (common.h line 330): no early stop.

#include <cstdint>
#include <optional>

#include "canitrun/hardware.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/server_terms.hpp"

namespace canitrun {

inline constexpr double kAssumedAcceptance = 0.7;  // an assumption, stated wherever it is used
inline constexpr std::uint64_t kLlamaDraftMax = 3;

struct SpeculativeSpeed {
    double target_tokens_per_s = 0;  // the model alone
    double draft_tokens_per_s = 0;   // the draft alone, on its devices
    double acceptance = kAssumedAcceptance;
    std::uint64_t draft_max = kLlamaDraftMax;
    double tokens_per_s = 0;  // with the draft
};

// Tokens per second with a draft: E / (g / draft + 1 / target), E as above.
double speculative_tokens_per_s(double target, double draft, double acceptance,
                                std::uint64_t draft_max);

// The speed with settings.server.draft, from the target's decode speed; empty without a draft
// or a speed for either.
Result<std::optional<SpeculativeSpeed>> speculative_speed(const Hardware& hardware,
                                                          const PlanSettings& settings,
                                                          double target_tokens_per_s);

}  // namespace canitrun
