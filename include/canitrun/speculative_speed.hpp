#pragma once
// Speculative decoding's decode speed with a draft model (--draft), as a stated assumption:
// no published measurement backs a band, so none is given. Each step the draft proposes up to
// --draft-max tokens (common_params_speculative::n_max, 16 in the mainline common.h read for
// this work; not confirmed for 0ad4a86) and the target checks them in one batch; with a
// per-token acceptance a the step yields (1 - a^(g+1)) / (1 - a) tokens on average (Leviathan,
// Kalman, Matias 2023, "Fast Inference from Transformers via Speculative Decoding", eq. 1) and
// costs g draft steps and one target step (a batch of g + 1 tokens read the weights once, as a
// decoded token does). llama.cpp stops a draft early below --draft-p-min (0.75), which this
// leaves out: the draft's cost reads high.

#include <cstdint>
#include <optional>

#include "canitrun/hardware.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/server_terms.hpp"

namespace canitrun {

inline constexpr double kAssumedAcceptance = 0.7;  // an assumption, stated wherever it is used
inline constexpr std::uint64_t kLlamaDraftMax = 16;

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
