#pragma once
// Everything the reference page shows for one model, as values: the quantization table, the
// quantization x context matrix, the KV comparison with an all-attention stack, the smallest
// GPU and the GPU lists, and the answers to a VRAM budget or a named GPU. Built by pure
// functions from the database and options; the CLI only formats it.

#include <cstdint>
#include <optional>
#include <vector>

#include "canitrun/card_class.hpp"
#include "canitrun/context_window.hpp"
#include "canitrun/database.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/hardware_report.hpp"
#include "canitrun/kv_curve.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/plan_views.hpp"

namespace canitrun {

struct ReportOptions {
    const Quant* quant = nullptr;  // null = the database's recommended quantization
    EstimateOptions estimate;
    FitOptions fit;
    std::optional<Bytes> vram_budget;  // --vram
    std::optional<Hardware> hardware;  // --gpu (named or detected)
    PlacementOptions placement;        // --ngl, --n-cpu-moe
    // The rule hardware answers are planned by; its context and KV type are `estimate`'s.
    PlanSettings plan;
    // --ctx given: the context is the user's; else the default, capped at the model's window.
    bool context_explicit = false;
};

// The quantizations the page's sentences quote beside the selected one, as the reference page
// does ("about 22 GB at Q4_K_M, 37 GB at Q8_0 and 70 GB at FP16"); the last is full precision.
inline constexpr const char* kQuotedQuants[] = {"Q8_0", "FP16"};
inline constexpr const char* kFullPrecisionQuant = "FP16";

struct QuantRow {
    const Quant* quant = nullptr;
    Estimate estimate;
    // The GGUF file's size (gguf_download_bytes: tensors, header, tokenizer), what one downloads;
    // the estimate is what the runtime allocates, which counts a tied output head on the GPU
    // and token_embd in RAM twice. Empty for a format that is not GGUF.
    std::optional<Bytes> file_bytes;
};

struct MatrixCell {
    Bytes total = 0;
    std::optional<CardClass> card;  // empty: larger than every class
};

struct MatrixRow {
    const Quant* quant = nullptr;
    std::vector<MatrixCell> cells;  // one per ModelReport::matrix_contexts
};

struct VramAnswer {
    Bytes budget = 0;
    Bytes usable = 0;                         // budget_usable: what the plans were held to
    bool fits_recommended = false;            // the selected quantization, natively
    std::optional<QuantChoice> best;          // the best that runs natively
    std::optional<QuantChoice> best_offload;  // better still, with offload (llama.cpp rule)
};

// The FAQ's "Can it run on a 16 / 24 GB GPU?", asked of the planner.
struct CardAnswer {
    std::uint64_t gb = 0;
    Bytes usable = 0;                 // budget_usable: what the plans were held to
    bool fits = false;                // the selected quantization, natively
    std::optional<QuantChoice> best;  // the best quantization that does

    // A "24 GB" card holds 24 GiB: a need past 24 x 10^9 bytes can still fit it, which a
    // sentence "within 24 GB" must then explain.
    bool past_marketed_gb(Bytes need) const { return need > gb * kGB; }
};

// One claim of the editorial text (EditorialClaim) asked of the plan at the page's rule: the
// quantization on a card of that size, as the FAQ's cards are planned, at the claim's context.
struct ClaimCheck {
    const EditorialClaim* claim = nullptr;
    const Quant* quant = nullptr;
    std::uint64_t context = 0;
    bool plan_fits = false;
    bool contradicted() const { return plan_fits != claim->fits; }
};

struct ModelReport {
    const Model* model = nullptr;
    const Quant* quant = nullptr;  // the selected (or recommended) quantization
    EstimateOptions options;
    FitOptions fit;
    Estimate selected;  // the selected quantization at the chosen context
    std::vector<QuantRow> rows;
    std::vector<std::uint64_t> matrix_contexts;
    std::vector<MatrixRow> matrix;
    // Full native context, selected quantization.
    Bytes kv_full_context = 0;
    Bytes kv_all_attention_full_context = 0;
    Bytes total_full_context = 0;
    Bytes total_all_attention_full_context = 0;
    Bytes kv_at_context = 0;
    Bytes kv_all_attention_at_context = 0;
    Bytes recurrent_state = 0;
    // KV growth from the chosen context to the full window; empty at or past the window.
    std::optional<Bytes> kv_growth_to_full;
    std::optional<Bytes> kv_all_attention_growth_to_full;
    // KV cache and total against context up to the native window (the page's chart).
    std::vector<KvCurvePoint> kv_curve;
    ContextStatus context_status = ContextStatus::within_native;
    Rule rule = Rule::llamacpp;  // the rule every figure was made by
    PlanSettings settings;       // that rule's settings (context, cache types, ...)
    std::string rule_note;       // why the rule differs from the one asked, when it does
    std::vector<CardAnswer> card_answers;
    std::vector<ClaimCheck> claim_checks;  // one per editorial claim whose quantization we know
    // Under the llama.cpp rule: what the reference page's quick rule would say instead.
    struct QuickContrast {
        Bytes total = 0;
        std::optional<CardClass> card;
    };
    std::optional<QuickContrast> quick_contrast;
    const Gpu* smallest_gpu = nullptr;
    GpuLists gpus;
    std::vector<GpuVerdict> gpu_verdicts;  // the plan behind each GPU in `gpus`
    std::optional<VramAnswer> vram;
    std::optional<HardwareReport> hardware;
    // What grows after load in RAM at the settings (server_terms.hpp): the llama.cpp rule only.
    std::optional<ServerGrowth> growth;
    // The rows' file types whose file in the model's gguf_repo its publisher makes by a recipe
    // of its own (published_recipe): the rows, and the printed `-hf REPO:TYPE`, are that mix.
    std::vector<PlainFileRecipe> publisher_mixes;
};

// 8k, 32k, 128k, 256k, capped at the model's native context (the cap becomes the last column).
std::vector<std::uint64_t> matrix_contexts(const Model& model);

Result<ModelReport> build_model_report(const Database& db, const Model& model,
                                       const ReportOptions& options);

}  // namespace canitrun
