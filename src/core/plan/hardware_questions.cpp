#include "canitrun/hardware_questions.hpp"

#include "canitrun/fastest_split.hpp"

#include <algorithm>

#include "canitrun/context_search.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/parallel_map.hpp"
#include "canitrun/row_split.hpp"
#include "canitrun/tensor_layout.hpp"
#include "canitrun/tensor_split.hpp"

#include "whole_floor.hpp"

namespace canitrun {
namespace {

std::vector<const Measurement*> measured_on(const Model& model, const Quant& quant,
                                            const Hardware& hardware) {
    std::vector<const Gpu*> gpus;
    for (const auto& d : hardware.gpus) gpus.push_back(d.gpu);
    return embedded_measurements_for(model.id, quant.id, gpus);
}

// The most 256-token steps (up to `longest`) at which the quick estimate fits `capacity`; 0 when
// none does or the estimate fails. Only a starting point for max_native_context's exact search.
std::uint64_t estimate_guess(const Model& model, const Quant& quant, EstimateOptions options,
                             Bytes capacity, std::uint64_t longest) {
    std::uint64_t lo = 0, hi = longest + 1;
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        options.context = mid * kContextStep;
        const auto e = estimate(model, quant, options);
        if (!e) return 0;
        (e->total() <= capacity ? lo : hi) = mid;
    }
    return lo;
}

}  // namespace

namespace {

// The -sm row placement of `parts`: every layer on the GPUs by the user's split or by memory,
// else by the uneven split that holds every layer under -sm layer (the answer, the longest
// context and the best quantization all ask this one).
Result<Placement> row_plan(const Model& model, const Quant& quant, const ModelParts& parts,
                           const Hardware& hardware, const PlacementOptions& options) {
    CANITRUN_TRY_ASSIGN(auto by_split, place(parts, hardware, options));
    CANITRUN_TRY_ASSIGN(auto p, row_split_placement(model, quant, hardware, options, by_split));
    if (p.fits()) return p;
    CANITRUN_TRY_ASSIGN(auto uneven, native_placement(parts, hardware, options));
    if (!uneven) return p;
    CANITRUN_TRY_ASSIGN(auto q,
                        row_split_placement(model, quant, hardware, options, std::move(*uneven)));
    return q.fits() ? q : p;
}

// The placement of a split mode that cuts matrices (row, tensor) of `parts`.
Result<Placement> cut_plan(const Model& model, const Quant& quant, const ModelParts& parts,
                           const Hardware& hardware, const PlanSettings& settings,
                           const PlacementOptions& options) {
    if (settings.split_mode == SplitMode::tensor) {
        return tensor_split_placement(model, quant, parts, hardware, options);
    }
    return row_plan(model, quant, parts, hardware, options);
}

// --split-mode tensor, as the pinned llama.cpp 0ad4a86 (and 5b4ebc5 before it) has it
// (tensor_split.hpp): first the reasons llama.cpp itself refuses to run it (the architecture,
// flash attention off), named as it names them. Its own --fit does not size it
// (common/fit.cpp:183: "llama_params_fit is not implemented for SPLIT_MODE_TENSOR"); canitrun
// plans it when asked, and shows it beside the default plan where its decode estimate is
// faster (tensor_split_option), never chooses it: checked against the four published pairs
// (validation/split-modes.json), the estimate ranks tensor against layer right in two
// (docs/METHOD.md, "Choosing tensor mode").
Result<bool> llamacpp_runs_tensor_split(const Model& model, const PlanSettings& settings) {
    const auto arch = llama_arch(model);
    if (arch && !llama_arch_supports_tensor_split(*arch)) {
        return fail(ErrorKind::bad_input,
                    "llama.cpp does not run --split-mode tensor for " + model.id +
                        ": llama_model_create throws \"LLAMA_SPLIT_MODE_TENSOR not implemented "
                        "for architecture '" +
                        *arch + "'\" (llm_arch_supports_sm_tensor, src/llama-arch.cpp, 0ad4a86)",
                    "use --split-mode layer (the default) or row");
    }
    if (settings.flash_attn == FlashAttn::off) {
        return fail(ErrorKind::bad_input,
                    "llama.cpp does not run --split-mode tensor with flash attention off "
                    "(src/llama-context.cpp, 0ad4a86: \"SPLIT_MODE_TENSOR requires flash_attn to "
                    "be enabled\")",
                    "leave --flash-attn off out, or use --split-mode layer");
    }
    return true;
}

// --split-mode row (row_split.hpp) or tensor (tensor_split.hpp): every layer on the GPUs (row:
// by the user's split or by memory, else by the uneven split that holds every layer under -sm
// layer); row carries no speed figure (none measured), tensor the decode estimate read from
// the few published pairs (speed.hpp, tensor_decode_note).
Result<HardwareAnswer> answer_cut_split(const Model& model, const Quant& quant,
                                        const Hardware& hardware, const PlanSettings& settings,
                                        const PlacementOptions& placement) {
    const std::string mode = split_mode_name(settings.split_mode);
    if (settings.split_mode == SplitMode::tensor) {
        CANITRUN_TRY(llamacpp_runs_tensor_split(model, settings));
    }
    if (settings.rule != Rule::llamacpp || placement.gpu_layers || placement.cpu_moe_layers) {
        return fail(ErrorKind::bad_input,
                    "--split-mode " + mode +
                        " is planned under llama.cpp's rule with every layer on the GPUs",
                    "leave --engine quick, --ngl, --n-cpu-moe and --cpu-moe out");
    }
    if (settings.file) {
        // The cut reads each tensor's shape, which a file's planned parts do not keep.
        return fail(ErrorKind::bad_input,
                    "--split-mode " + mode + " is not planned for a model file yet",
                    "plan the database model at the file's quantization, or --split-mode layer");
    }
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(model, quant, settings));
    CANITRUN_TRY_ASSIGN(const PlacementOptions options,
                        server_placement_for(model, quant, hardware, settings, placement));
    CANITRUN_TRY_ASSIGN(auto p, cut_plan(model, quant, parts, hardware, settings, options));
    const bool runs = p.fits() && hardware_runs(hardware, quant);
    HardwareAnswer a{
        &quant, settings, Plan{runs ? PlanKind::native : PlanKind::none, p}, {}, {}, {}, {}, {}};
    a.measured = measured_on(model, quant, hardware);
    if (settings.split_mode == SplitMode::tensor && runs) {
        a.speed = estimate_speed(model, quant, a.plan.placement, hardware,
                                 settings.estimate.context, settings.ubatch, settings.n_seq);
    }
    return a;
}

// plan_for under -sm layer.
Result<Plan> layer_plan(const Model& model, const Quant& quant, const Hardware& hardware,
                        const PlanSettings& settings, const PlacementOptions& placement) {
    if (placement.cpu_moe_layers && !model.is_moe()) {
        return fail(
            ErrorKind::bad_input,
            "--n-cpu-moe and --cpu-moe move routed experts, and " + model.id + " is a dense model",
            "use --ngl to keep layers in RAM");
    }
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(model, quant, settings));
    CANITRUN_TRY_ASSIGN(const PlacementOptions options,
                        server_placement_for(model, quant, hardware, settings, placement));
    CANITRUN_TRY_ASSIGN(auto found, plan_placement(parts, hardware, options));
    CANITRUN_TRY_ASSIGN(Plan plan, fastest_plan(model, quant, parts, hardware, settings, options,
                                                std::move(found)));
    if (!hardware_runs(hardware, quant)) plan.kind = PlanKind::none;
    return plan;
}

}  // namespace

Result<Plan> plan_for(const Model& model, const Quant& quant, const Hardware& hardware,
                      const PlanSettings& settings, const PlacementOptions& placement) {
    if (settings.split_mode != SplitMode::layer) {
        CANITRUN_TRY_ASSIGN(auto a, answer_cut_split(model, quant, hardware, settings, placement));
        return std::move(a.plan);
    }
    return layer_plan(model, quant, hardware, settings, placement);
}

Result<PlanKind> layer_kind(const Model& model, PlacementMemo& memo, const Quant& quant,
                            const Hardware& hardware, const PlanSettings& settings,
                            KindSteps steps) {
    if (!hardware_runs(hardware, quant)) return PlanKind::none;
    CANITRUN_TRY_ASSIGN(const auto options, server_placement_for(model, quant, hardware, settings));
    if (steps == KindSteps::whole) {
        CANITRUN_TRY_ASSIGN(const auto plan, plan_placement(memo, hardware, options));
        return plan.kind;
    }
    // plan_placement's kind for a whole placement: native on GPUs, cpu_only without.
    CANITRUN_TRY_ASSIGN(const auto whole, native_placement(memo, hardware, options));
    if (!whole) return PlanKind::none;
    return hardware.gpus.empty() ? PlanKind::cpu_only : PlanKind::native;
}

Result<bool> native_for(const Model& model, const Quant& quant, const Hardware& hardware,
                        const PlanSettings& settings) {
    if (settings.split_mode != SplitMode::layer) {
        CANITRUN_TRY_ASSIGN(const auto plan, plan_for(model, quant, hardware, settings));
        return plan.kind == PlanKind::native;
    }
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(model, quant, settings));
    PlacementMemo memo(std::move(parts));
    CANITRUN_TRY_ASSIGN(const auto kind,
                        layer_kind(model, memo, quant, hardware, settings, KindSteps::native_only));
    return kind == PlanKind::native;
}

namespace {

// answer_for without the alternative: the plan the settings and flags give, with its speed.
Result<HardwareAnswer> answer_as_given(const Model& model, const Quant& quant,
                                       const Hardware& hardware, const PlanSettings& settings,
                                       const PlacementOptions& placement) {
    if (settings.split_mode != SplitMode::layer) {
        return answer_cut_split(model, quant, hardware, settings, placement);
    }
    CANITRUN_TRY_ASSIGN(auto plan, plan_for(model, quant, hardware, settings, placement));
    HardwareAnswer a{&quant, settings, plan, {}, {}, {}, {}, {}};
    a.speed = estimate_speed(model, quant, plan.placement, hardware, settings.estimate.context,
                             settings.ubatch, settings.n_seq);
    a.measured = measured_on(model, quant, hardware);
    if (plan.kind != PlanKind::none) {
        CANITRUN_TRY_ASSIGN(a.speculative,
                            speculative_speed(hardware, settings, a.speed.decode_tokens_per_s));
    }
    return a;
}

}  // namespace

bool user_fixed_placement(const PlanSettings& settings, const PlacementOptions& placement) {
    return settings.split_mode != SplitMode::layer || placement.gpu_layers.has_value() ||
           placement.cpu_moe_layers.has_value() || !placement.tensor_split.empty();
}

Result<HardwareAnswer> answer_for(const Model& model, const Quant& quant, const Hardware& hardware,
                                  const PlanSettings& settings, const PlacementOptions& placement) {
    CANITRUN_TRY_ASSIGN(auto a, answer_as_given(model, quant, hardware, settings, placement));
    // Memory is why only where the hardware runs the format at all (NVFP4 off CUDA is not).
    if (a.plan.kind != PlanKind::none || !user_fixed_placement(settings, placement) ||
        !hardware_runs(hardware, quant)) {
        return a;
    }
    // The planner's own choice: -sm layer (the default), the split, -ngl and --n-cpu-moe left
    // to the search, every other setting as asked.
    PlanSettings own_settings = settings;
    own_settings.split_mode = SplitMode::layer;
    PlacementOptions own = placement;
    own.gpu_layers.reset();
    own.cpu_moe_layers.reset();
    own.tensor_split.clear();
    CANITRUN_TRY_ASSIGN(auto planned, answer_as_given(model, quant, hardware, own_settings, own));
    if (planned.plan.kind != PlanKind::none) {
        a.alternative =
            PlacementAlternative{std::move(planned.plan), planned.speed.decode_tokens_per_s};
    }
    return a;
}

Result<std::optional<PlacementAlternative>> tensor_split_option(const Model& model,
                                                                const Quant& quant,
                                                                const Hardware& hardware,
                                                                const PlacementOptions& placement,
                                                                const HardwareAnswer& chosen) {
    const PlanSettings& settings = chosen.settings;
    const std::optional<PlacementAlternative> none;
    if (hardware.gpus.size() < 2 || settings.rule != Rule::llamacpp || settings.file ||
        user_fixed_placement(settings, placement) || chosen.plan.kind == PlanKind::none) {
        return none;
    }
    PlanSettings tensor = settings;
    tensor.split_mode = SplitMode::tensor;
    // Where llama.cpp or the cut does not apply (the architecture, mixed GPUs, layers not
    // planned), there is no option to show: the refusal is the answer to asking for it.
    auto a = answer_cut_split(model, quant, hardware, tensor, placement);
    if (!a || a->plan.kind == PlanKind::none ||
        a->speed.decode_tokens_per_s <= chosen.speed.decode_tokens_per_s) {
        return none;
    }
    return std::optional<PlacementAlternative>{
        PlacementAlternative{std::move(a->plan), a->speed.decode_tokens_per_s}};
}

namespace {

// max_native_context from the model's parts at the quantization (any context).
Result<std::optional<std::uint64_t>> longest_from_parts(const Model& model, const Quant& quant,
                                                        const ModelParts& base,
                                                        const Hardware& hardware,
                                                        const PlanSettings& settings) {
    // A search over multiples of 256 (longest_fitting_steps). The weights are cut into parts
    // once; each step recomputes only the KV cache.
    PlanSettings o = settings;
    CANITRUN_TRY_ASSIGN(const PlacementOptions placement,
                        server_placement_for(model, quant, hardware, settings));
    // The weights no plan can keep off the GPUs: llama.cpp's rule keeps the input embedding in
    // RAM (place()), so it is no part of the bound (a plan that fits only once the growth is
    // lowered, cap_growth, can have the embedding fill the RAM).
    const Bytes gpu_weights = base.buffers ? base.weights() - base.input_weights : base.weights();
    if (gpu_weights > hardware.gpu_memory() && !hardware.gpus.empty()) {
        return std::optional<std::uint64_t>{};
    }
    // Each of n sequences may reach the window: n_ctx is their sum.
    const std::uint64_t longest =
        checked::mul(longest_supported_context(model), std::max<std::uint64_t>(settings.n_seq, 1)) /
        kContextStep;
    // Each probe's verdict with its room, which aims the next probe (context_search.hpp).
    const StepProber fits_at = [&](std::uint64_t steps) -> Result<StepProbe> {
        o.estimate.context = steps * kContextStep;
        CANITRUN_TRY_ASSIGN(auto parts, plan_parts_at_context(base, model, o));
        if (settings.split_mode != SplitMode::layer) {
            CANITRUN_TRY_ASSIGN(auto cut,
                                cut_plan(model, quant, parts, hardware, settings, placement));
            return StepProbe{cut.fits(), placement_room(cut)};
        }
        CANITRUN_TRY_ASSIGN(auto t, try_native(parts, hardware, placement));
        return StepProbe{t.fits, placement_room(t.placement)};
    };
    // The first probe: the quick estimate against all GPU memory together, near the answer for
    // a dense model on one GPU. The search stays exact whatever the guess.
    const std::uint64_t guess =
        hardware.gpus.empty()
            ? 0
            : estimate_guess(model, quant, settings.estimate, hardware.gpu_memory(), longest);
    CANITRUN_TRY_ASSIGN(const std::uint64_t lo, longest_fitting_steps(longest, guess, fits_at));
    if (lo == 0) return std::optional<std::uint64_t>{};
    return std::optional<std::uint64_t>{lo * kContextStep};
}

}  // namespace

Result<std::optional<std::uint64_t>> max_native_context(const Model& model, const Quant& quant,
                                                        const Hardware& hardware,
                                                        const PlanSettings& settings) {
    if (!hardware_runs(hardware, quant)) return std::optional<std::uint64_t>{};
    CANITRUN_TRY_ASSIGN(const auto base, plan_parts(model, quant, settings));
    return longest_from_parts(model, quant, base, hardware, settings);
}

namespace {

// Whether an answer with offload decodes at the speed floor or faster; a speed unknown (no
// bandwidth on record) counts as reaching it.
bool reaches_floor(const HardwareAnswer& a, const PlanSettings& settings) {
    const double rate = a.speed.decode_tokens_per_s;
    return rate >= settings.min_decode_tokens_per_s || rate <= 0;
}

std::vector<const Quant*> by_quality(std::vector<const Quant*> quants) {
    std::stable_sort(quants.begin(), quants.end(), [](const Quant* a, const Quant* b) {
        return a->quality_rank < b->quality_rank;
    });
    return quants;
}

// A native answer and the parts it was placed from, which the context search reuses.
struct NativeFit {
    HardwareAnswer answer;
    ModelParts parts;
};

// What the snapshot keeps of a database model: its layout's device_elements (WholeFloor) and
// its weight terms by quantization (plan_parts); nothing for another model.
struct Kept {
    const std::array<std::uint64_t, 5>* elements = nullptr;
    std::string_view weights;
};

// The best-quality quantization that fits whole on the GPUs (`ranked` best first), cheapest
// check first; nothing when none does. Its answer is the one answer_for() gives: with default
// placement options a plan that fits whole is native.
Result<std::optional<NativeFit>> best_native(const Model& model,
                                             const std::vector<const Quant*>& ranked,
                                             const Hardware& hardware, const PlanSettings& settings,
                                             Kept kept = {}) {
    Bytes caches = 0;  // gpu_caches(), once a quantization's parts give them
    const WholeFloor floor(model, hardware, settings, kept.elements);
    for (const Quant* q : ranked) {
        if (!hardware_runs(hardware, *q) || !*rule_offers(settings, *q)) continue;
        CANITRUN_TRY_ASSIGN(auto ruled_out, floor.rules_out(*q, caches));
        if (ruled_out) continue;
        CANITRUN_TRY_ASSIGN(auto parts, plan_parts(model, *q, settings, kept.weights));
        CANITRUN_TRY_ASSIGN(const PlacementOptions placement,
                            server_placement_for(model, *q, hardware, settings));
        caches = gpu_caches(parts, placement);
        CANITRUN_TRY_ASSIGN(auto whole, native_placement(parts, hardware, placement));
        if (!whole) continue;
        CANITRUN_TRY_ASSIGN(auto fastest,
                            fastest_plan(model, *q, parts, hardware, settings, placement,
                                         Plan{PlanKind::native, std::move(*whole)}));
        const Placement& placed = fastest.placement;
        HardwareAnswer a{q, settings, Plan{PlanKind::native, placed}, {}, {}, {}, {}, {}};
        a.speed = estimate_speed(model, *q, placed, hardware, settings.estimate.context,
                                 settings.ubatch, settings.n_seq);
        a.measured = measured_on(model, *q, hardware);
        return std::optional<NativeFit>{NativeFit{std::move(a), std::move(parts)}};
    }
    return std::optional<NativeFit>{};
}

}  // namespace

Result<std::optional<HardwareAnswer>> best_quant_for_hardware(
    const Model& model, const std::vector<const Quant*>& quants, const Hardware& hardware,
    const PlanSettings& settings) {
    CANITRUN_TRY_ASSIGN(auto choices,
                        quant_choices_for_hardware(model, quants, hardware, settings));
    return choices.best;
}

Result<QuantChoices> quant_choices_for_hardware(const Model& model,
                                                const std::vector<const Quant*>& quants,
                                                const Hardware& hardware,
                                                const PlanSettings& settings) {
    // The best-quality quantization that fits whole on the GPUs wins outright; offload is planned
    // (a search over layer splits) only when none does. Under --split-mode row and tensor every
    // plan is whole on the GPUs or none (answer_cut_split), so the loop below, through
    // answer_for, finds the best quality whose cut plan fits, and the floor does not apply (no
    // speed figure).
    if (!hardware.gpus.empty() && settings.split_mode == SplitMode::layer) {
        CANITRUN_TRY_ASSIGN(auto native,
                            best_native(model, by_quality(quants), hardware, settings));
        if (native) return QuantChoices{native->answer, std::nullopt};
    }
    // With offload: the best quality that decodes at the floor or faster, else (nothing reaches
    // it) the fastest, never a 0.4 tokens/s "best" for its quality alone.
    std::optional<HardwareAnswer> native, usable, fastest, fastest_of_all;
    for (const Quant* q : quants) {
        if (!*rule_offers(settings, *q)) continue;
        CANITRUN_TRY_ASSIGN(auto a, answer_for(model, *q, hardware, settings));
        if (a.plan.kind == PlanKind::none) continue;
        const double rate = a.speed.decode_tokens_per_s;
        const auto better = [&](const std::optional<HardwareAnswer>& slot) {
            return !slot || q->quality_rank < slot->quant->quality_rank;
        };
        if (!fastest_of_all || rate > fastest_of_all->speed.decode_tokens_per_s) {
            fastest_of_all = a;
        }
        if (a.plan.kind == PlanKind::native) {
            if (better(native)) native = a;
        } else if (reaches_floor(a, settings)) {
            if (better(usable)) usable = a;
        } else if (!fastest || rate > fastest->speed.decode_tokens_per_s) {
            fastest = a;
        }
    }
    if (native) return QuantChoices{native, std::nullopt};
    return QuantChoices{usable ? usable : fastest, fastest_of_all};
}

Result<std::optional<HardwareAnswer>> better_with_offload(const Model& model,
                                                          const std::vector<const Quant*>& quants,
                                                          const Hardware& hardware,
                                                          const PlanSettings& settings,
                                                          const HardwareAnswer& whole) {
    if (whole.plan.kind != PlanKind::native || settings.split_mode != SplitMode::layer) {
        return std::optional<HardwareAnswer>{};
    }
    // Best quality first, so the first that runs at the floor is the answer.
    for (const Quant* q : by_quality(quants)) {
        if (q->quality_rank >= whole.quant->quality_rank) break;
        if (!hardware_runs(hardware, *q) || !*rule_offers(settings, *q)) continue;
        CANITRUN_TRY_ASSIGN(auto a, answer_for(model, *q, hardware, settings));
        if (a.plan.kind != PlanKind::none && reaches_floor(a, settings)) {
            return std::optional<HardwareAnswer>{std::move(a)};
        }
    }
    return std::optional<HardwareAnswer>{};
}

namespace {

// Whole in RAM, the one plan a machine without a GPU has: the best quality that fits is the
// first that does, best first (best_quant_for_hardware's answer, without planning the rest).
Result<std::optional<ModelFit>> best_in_ram(const Model& model,
                                            const std::vector<const Quant*>& ranked,
                                            const Hardware& hardware, const PlanSettings& o,
                                            Kept kept) {
    const WholeFloor floor(model, hardware, o, kept.elements);
    for (const Quant* q : ranked) {
        CANITRUN_TRY_ASSIGN(const bool offered, rule_offers(o, *q));
        if (!offered) continue;
        CANITRUN_TRY_ASSIGN(const bool ruled_out, floor.rules_out(*q));
        if (ruled_out) continue;
        CANITRUN_TRY_ASSIGN(auto a, answer_for(model, *q, hardware, o));
        if (a.plan.kind != PlanKind::cpu_only) continue;
        CANITRUN_TRY_ASSIGN(auto longest, max_native_context(model, *q, hardware, o));
        return std::optional<ModelFit>{ModelFit{&model, a, longest.value_or(o.estimate.context)}};
    }
    return std::optional<ModelFit>{};
}

// One model's entry in models_that_fit(): its best native plan and longest context, or nothing.
Result<std::optional<ModelFit>> model_fit(const Model& model,
                                          const std::vector<const Quant*>& ranked,
                                          const Hardware& hardware, const PlanSettings& settings,
                                          Kept kept) {
    PlanSettings o = settings_for_model(model, settings);
    o.estimate.context = std::min(o.estimate.context, longest_supported_context(model));
    if (hardware.gpus.empty()) return best_in_ram(model, ranked, hardware, o, kept);
    // Whole on the GPUs; offload answers would be dropped, so they are never planned.
    CANITRUN_TRY_ASSIGN(auto native, best_native(model, ranked, hardware, o, kept));
    if (!native) return std::optional<ModelFit>{};
    const Quant& quant = *native->answer.quant;
    CANITRUN_TRY_ASSIGN(auto longest, longest_from_parts(model, quant, native->parts, hardware, o));
    return std::optional<ModelFit>{
        ModelFit{&model, native->answer, longest.value_or(o.estimate.context)}};
}

}  // namespace

Result<std::vector<ModelFit>> models_that_fit(const Database& db, const Hardware& hardware,
                                              const PlanSettings& settings, ContextAsked context) {
    const std::vector<const Quant*> ranked = by_quality(llama_cpp_quants(db));
    // The models are independent questions: asked on every core (parallel_map.hpp), the
    // costliest first. A model's cost is mostly its tensors' (its layout, typed per quantization
    // tried): its layers, a routed layer's FFN twice a dense one's tensors.
    std::vector<std::size_t> order(db.models.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto cost = [&](std::size_t i) {
        const Model& m = db.models[i];
        return m.arch.layers * (m.is_moe() ? 2 : 1);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
    auto answers = parallel_map(
        db.models.size(),
        [&](std::size_t i) {
            const Model& model = db.models[i];
            if (context == ContextAsked::asked &&
                longest_supported_context(model) < settings.estimate.context) {
                return Result<std::optional<ModelFit>>(std::optional<ModelFit>{});
            }
            // The snapshot's figures are this very model's (index-aligned, worked out from it
            // at build time; a Database is not edited once read).
            Kept kept;
            if (db.device_elements.size() == db.models.size() && db.device_elements[i]) {
                kept.elements = &*db.device_elements[i];
            }
            if (db.weight_parts.size() == db.models.size()) kept.weights = db.weight_parts[i];
            return model_fit(model, ranked, hardware, settings, kept);
        },
        order);
    std::vector<ModelFit> fits;
    for (auto& answer : answers) {
        CANITRUN_TRY_ASSIGN(auto fit, std::move(answer));
        if (fit) fits.push_back(std::move(*fit));
    }
    return fits;
}

Result<FitSort> parse_fit_sort(const std::string& text) {
    if (text == "params") return FitSort::params;
    if (text == "speed") return FitSort::speed;
    if (text == "context") return FitSort::context;
    if (text == "name") return FitSort::name;
    return fail(ErrorKind::bad_input, "unknown sort order '" + text + "'",
                "use one of: params, speed, context, name");
}

void sort_model_fits(std::vector<ModelFit>& fits, FitSort order) {
    const auto by = [order](const ModelFit& a, const ModelFit& b) {
        switch (order) {
            case FitSort::params:
                if (a.model->params_total != b.model->params_total) {
                    return a.model->params_total > b.model->params_total;
                }
                break;
            case FitSort::speed:
                if (a.answer.speed.decode_tokens_per_s != b.answer.speed.decode_tokens_per_s) {
                    return a.answer.speed.decode_tokens_per_s > b.answer.speed.decode_tokens_per_s;
                }
                break;
            case FitSort::context:
                if (a.max_context != b.max_context) return a.max_context > b.max_context;
                break;
            case FitSort::name:
                break;
        }
        return a.model->id < b.model->id;
    };
    std::stable_sort(fits.begin(), fits.end(), by);
}

std::vector<const Quant*> llama_cpp_quants(const Database& db) {
    std::vector<const Quant*> out;
    for (const auto& q : db.quants) {
        if (q.format == "gguf") out.push_back(&q);
    }
    return out;
}

}  // namespace canitrun
