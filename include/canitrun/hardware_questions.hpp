#pragma once
// The inverse questions, for given hardware: the best quantization that fits at a context, the
// longest context that fits at a quantization, and every model that runs on it.
//
// "Fits" means the whole model on the GPUs (the plan is native) unless a question says
// otherwise. Contexts are searched up to the model's longest supported context (extended with
// YaRN where the model card allows it) and rounded down to a multiple of 256, since llama.cpp
// pads its cache to 256 cells.

#include <cstdint>
#include <optional>
#include <vector>

#include "canitrun/context_window.hpp"
#include "canitrun/database.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/measurements.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/speculative_speed.hpp"
#include "canitrun/speed.hpp"

namespace canitrun {

inline constexpr std::uint64_t kContextStep = 256;

// The planner's own plan for a question the user's placement flags made fail, and its decode
// speed (0: no speed figure).
struct PlacementAlternative {
    Plan plan;
    double decode_tokens_per_s = 0;
};

// Whether the user fixed where the layers go: -ngl, --n-cpu-moe / --cpu-moe, --tensor-split or
// --split-mode row or tensor (each of which the planner would otherwise choose).
bool user_fixed_placement(const PlanSettings& settings, const PlacementOptions& placement);

struct HardwareAnswer {
    const Quant* quant = nullptr;
    PlanSettings settings;  // the rule and settings the plan was made by
    Plan plan;
    Speed speed;
    // Published llama-bench runs of this model at this quantization on these GPUs.
    std::vector<const Measurement*> measured;
    // With a draft model (--draft): the decode speed with it, an assumption (no band).
    std::optional<SpeculativeSpeed> speculative;
    // Where the plan does not fit and the user fixed where the layers go (user_fixed_placement):
    // the planner's own plan with those flags left out, when that one runs, so a failure names
    // the change that makes it fit rather than a flag to guess at.
    std::optional<PlacementAlternative> alternative;
    // On the model page (build_hardware_report): --split-mode tensor where it runs and its
    // decode estimate beats this plan's (tensor_split_option); shown beside the plan, never
    // chosen for it, as its figure rests on four published runs (tensor_decode_note).
    std::optional<PlacementAlternative> tensor_option;
};

// The model at this quantization and context on this hardware: the plan (native, offload, or
// none) and its speed; with `alternative` where the user's placement flags are why it is none.
Result<HardwareAnswer> answer_for(const Model& model, const Quant& quant, const Hardware& hardware,
                                  const PlanSettings& settings,
                                  const PlacementOptions& placement = {});

// --split-mode tensor beside `chosen` (answer_for's plan under -sm layer, the placement left to
// the planner, two or more GPUs, the llama.cpp rule on a database model): its plan and decode
// estimate where llama.cpp runs it, it fits and it decodes faster than `chosen`; empty
// otherwise. Not chosen by the search: its speed rests on four published runs (three on RTX
// 4090s, tensor_decode_note), and ranks tensor against layer right in only two of them
// (docs/METHOD.md, "Choosing tensor mode"): no margin over the layer estimate separates them.
Result<std::optional<PlacementAlternative>> tensor_split_option(const Model& model,
                                                                const Quant& quant,
                                                                const Hardware& hardware,
                                                                const PlacementOptions& placement,
                                                                const HardwareAnswer& chosen);

// answer_for's plan alone (its kind and placement), without the speed and the measurements:
// for a search that reads only whether a plan is native.
Result<Plan> plan_for(const Model& model, const Quant& quant, const Hardware& hardware,
                      const PlanSettings& settings, const PlacementOptions& placement = {});

// Whether plan_for's plan (the placement left to the planner) is native, without what plan_for
// adds to a whole placement or goes on to where there is none: under -sm layer, plan_placement's
// first step alone (no offload search, no fastest split, which never changes a plan's kind).
// For a search that asks it many times (llamacpp_capacity's user counts).
Result<bool> native_for(const Model& model, const Quant& quant, const Hardware& hardware,
                        const PlanSettings& settings);

// How far layer_kind goes: plan_placement's first step alone (native_placement), or the whole
// of it (the offload search where the model is not native).
enum class KindSteps { native_only, whole };

// The kind of plan_for's plan under -sm layer (the placement left to the planner) over the
// memo's parts, without its placement, speed and fastest split (which never changes a kind):
// none where the hardware does not run the quantization, else plan_placement's kind with the
// server's placement options (server_placement_for). `native_only`: native, cpu_only (no GPU)
// or none, with no offload search. The steps native_for and the page's views (plan_views.hpp:
// each board's and budget's verdict over one memo) share.
Result<PlanKind> layer_kind(const Model& model, PlacementMemo& memo, const Quant& quant,
                            const Hardware& hardware, const PlanSettings& settings,
                            KindSteps steps);

// The longest context (a multiple of 256) at which the whole model fits the GPUs; empty when
// not even 256 tokens fit.
Result<std::optional<std::uint64_t>> max_native_context(const Model& model, const Quant& quant,
                                                        const Hardware& hardware,
                                                        const PlanSettings& settings);

// The highest-quality quantization whose plan is native at the options' context; when none
// is, the highest-quality one that runs with offload at settings.min_decode_tokens_per_s or
// faster (a speed unknown counts as reaching it); when none reaches it, the fastest that runs.
// Empty when nothing runs.
// best_quant_for_hardware's answer, and beside it, when the best runs with offload, the fastest
// quantization that runs (which may be the same one).
struct QuantChoices {
    std::optional<HardwareAnswer> best;
    std::optional<HardwareAnswer> fastest;
};
Result<QuantChoices> quant_choices_for_hardware(const Model& model,
                                                const std::vector<const Quant*>& quants,
                                                const Hardware& hardware,
                                                const PlanSettings& settings);

Result<std::optional<HardwareAnswer>> best_quant_for_hardware(
    const Model& model, const std::vector<const Quant*>& quants, const Hardware& hardware,
    const PlanSettings& settings);

// Beside a best quantization that runs whole (quant_choices_for_hardware's, under -sm layer):
// the highest-quality one of better quality that runs with offload at
// settings.min_decode_tokens_per_s or faster (a speed unknown counts as reaching it), so a
// page can show both. Empty when none does, or when `whole` is not native.
Result<std::optional<HardwareAnswer>> better_with_offload(const Model& model,
                                                          const std::vector<const Quant*>& quants,
                                                          const Hardware& hardware,
                                                          const PlanSettings& settings,
                                                          const HardwareAnswer& whole);

struct ModelFit {
    const Model* model = nullptr;
    HardwareAnswer answer;          // best quantization at the asked context
    std::uint64_t max_context = 0;  // at that quantization, natively
};

// Whether a context was asked for (--ctx) or is the default: a model whose longest supported
// context is shorter cannot run at an asked one (every other command refuses it), while the
// default is capped at each model's window, as the model page caps it.
enum class ContextAsked { asked, default_capped };

// Every model that runs natively on the hardware at the options' context (on a machine without
// a GPU: whole in RAM), each with its best quantization, its longest context and its speed
// (database order).
Result<std::vector<ModelFit>> models_that_fit(const Database& db, const Hardware& hardware,
                                              const PlanSettings& settings,
                                              ContextAsked context = ContextAsked::default_capped);

enum class FitSort { params, speed, context, name };

// "params" (largest first), "speed" (fastest first), "context" (longest first), "name".
Result<FitSort> parse_fit_sort(const std::string& text);

void sort_model_fits(std::vector<ModelFit>& fits, FitSort order);

// The formats llama.cpp runs (GGUF): the hardware answers are llama.cpp placements.
std::vector<const Quant*> llama_cpp_quants(const Database& db);

}  // namespace canitrun
