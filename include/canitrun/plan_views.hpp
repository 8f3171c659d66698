#pragma once
// The page's verdicts as views of plans: which GPUs run a model (natively or with offload),
// the smallest one, the smallest card class per matrix cell, what a VRAM budget holds, and the
// FAQ's "can it run on a 24 GB GPU". Each asks the planner under the chosen rule; under the
// quick rule each is the reference page's own comparison (total against the marketed size),
// so `--engine quick` reproduces the page to the digit.

#include <optional>
#include <vector>

#include "canitrun/card_class.hpp"
#include "canitrun/database.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/plan_settings.hpp"

namespace canitrun {

// A card sold as `gb` GB holds gb GiB (a "24 GB" RTX 4090 has 25,769,803,776 bytes); so does
// a --vram budget of that many GB.
Bytes card_bytes_for_gb(Bytes marketed_bytes);

// A device of unknown make with this much memory (a --vram budget, a card class).
GpuDevice generic_device(Bytes memory);

// What a budget of `budget` bytes (--vram, the FAQ's cards) leaves the model: under the llama.cpp
// rule a card of card_bytes_for_gb(budget) less the margin kept free on it (gpu_capacity, as
// --gpu's cards), under the quick rule the bytes themselves.
Bytes budget_usable(const PlanSettings& settings, Bytes budget);

// The model at the quantization on one device by the rule, as a total: the page's headline.
// Quick: weights + KV + overhead; llama.cpp: every buffer on a CUDA device plus the host's.
Result<Estimate> rule_estimate(const Model& model, const Quant& quant,
                               const PlanSettings& settings);

// How the model runs on one device with `ram` bytes of system RAM: native, offload or none.
Result<PlanKind> plan_on_device(const Model& model, const Quant& quant,
                                const PlanSettings& settings, const GpuDevice& device, Bytes ram);

// One GPU's plan, as the GPU lists show it.
struct GpuVerdict {
    const Gpu* gpu = nullptr;
    PlanKind kind = PlanKind::none;
    Bytes gpu_bytes = 0;  // what the plan puts on the GPU
    Bytes capacity = 0;   // what the rule lets it use there
    Bytes ram_bytes = 0;  // what the plan keeps in system RAM
};

struct ModelGpuVerdicts {
    GpuLists gpus;                     // every database GPU that runs it, natively or with offload
    const Gpu* smallest = nullptr;     // the smallest that runs it natively
    std::vector<GpuVerdict> verdicts;  // every GPU in `gpus`, same order: natives, then offload
};
Result<ModelGpuVerdicts> plan_gpu_verdicts(const Database& db, const Model& model,
                                           const Quant& quant, const PlanSettings& settings,
                                           const FitOptions& fit);

// The smallest card class that holds the model natively at the settings' context.
Result<std::optional<CardClass>> plan_card_class(const Model& model, const Quant& quant,
                                                 const PlanSettings& settings,
                                                 const std::vector<CardClass>& classes);

struct BudgetAnswer {
    Bytes usable = 0;                         // budget_usable: what the plans were held to
    bool fits = false;                        // the asked quantization, natively
    std::optional<QuantChoice> best;          // the best quantization that runs natively
    std::optional<QuantChoice> best_offload;  // the best that runs with offload (llama.cpp rule)
};

// A budget of `budget` bytes as one device (card_bytes_for_gb under the llama.cpp rule, the
// bytes themselves under the quick rule).
Result<BudgetAnswer> plan_budget(const Model& model, const Quant& asked,
                                 const std::vector<const Quant*>& quants,
                                 const PlanSettings& settings, Bytes budget, Bytes ram);
// plan_budget for each budget in turn, each quantization's parts planned once for all of them
// (the page asks 16 GB, 24 GB and --vram's).
Result<std::vector<BudgetAnswer>> plan_budgets(const Model& model, const Quant& asked,
                                               const std::vector<const Quant*>& quants,
                                               const PlanSettings& settings,
                                               const std::vector<Bytes>& budgets, Bytes ram);

}  // namespace canitrun
