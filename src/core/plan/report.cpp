#include "canitrun/report.hpp"

#include <algorithm>
#include <deque>

#include "canitrun/checked.hpp"
#include "canitrun/context_window.hpp"
#include "canitrun/gguf_file_size.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/kv_curve.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/plan_views.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {
namespace {

// The quantizations the page's table shows.
std::vector<const Quant*> page_quants(const Database& db) {
    std::vector<const Quant*> out;
    for (const auto& q : db.quants) {
        if (q.page_table) out.push_back(&q);
    }
    return out;
}

// A budget (--vram, the FAQ's 16 and 24 GB cards) is a GPU of that size: it chooses among what
// --gpu chooses from, every quantization llama.cpp runs; the quick rule keeps the page's ten, as
// the reference page's budgets do.
std::vector<const Quant*> budget_quants(const Database& db, const PlanSettings& s) {
    return s.rule == Rule::quick ? page_quants(db) : llama_cpp_quants(db);
}

}  // namespace

std::vector<std::uint64_t> matrix_contexts(const Model& model) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t ctx : {8192ULL, 32768ULL, 131072ULL, 262144ULL}) {
        const std::uint64_t capped = std::min(ctx, model.context_native);
        if (std::find(out.begin(), out.end(), capped) == out.end()) out.push_back(capped);
    }
    return out;
}

namespace {

PlanSettings settings_for(const Model& model, const ModelReport& r, const ReportOptions& options,
                          std::string& note) {
    PlanSettings s = options.plan;
    s.estimate = r.options;
    return settings_for_model(model, s, &note);
}

// The parts of the page that do not depend on the context asked: the grid (its contexts are
// its own) and the KV curve (drawn to the full window). Rows of the grid by index in
// db.quants.
struct ContextFreeParts {
    std::vector<std::pair<std::size_t, std::vector<MatrixCell>>> grid;
    std::vector<KvCurvePoint> curve;
};

Result<ContextFreeParts> context_free_parts(const Database& db, const Model& model,
                                            const Quant& quant, const PlanSettings& s) {
    ContextFreeParts parts;
    for (std::size_t i = 0; i < db.quants.size(); ++i) {
        const Quant& q = db.quants[i];
        if (!q.page_matrix || !*rule_loads(s, q)) continue;
        std::vector<MatrixCell> cells;
        for (std::uint64_t ctx : matrix_contexts(model)) {
            PlanSettings at = s;
            at.estimate.context = ctx;
            CANITRUN_TRY_ASSIGN(auto e, rule_estimate(model, q, at));
            CANITRUN_TRY_ASSIGN(auto card, plan_card_class(model, q, at, db.card_classes));
            cells.push_back({e.on(Device::gpu), card});
        }
        parts.grid.emplace_back(i, std::move(cells));
    }
    CANITRUN_TRY_ASSIGN(parts.curve, kv_curve(model, quant, s));
    return parts;
}

// context_free_parts, kept for the next question that differs only in its context (canitrun
// serve asks thousands; the grid and the curve were an eighth of each answer). The key is
// everything they read, by value: a Database at an address another one had may hold other
// data. A few per thread, the oldest dropped first.
Result<ContextFreeParts> remembered_context_free_parts(const Database& db, const Model& model,
                                                       const Quant& quant, const PlanSettings& s) {
    struct Entry {
        Model model;
        std::vector<Quant> quants;
        std::vector<CardClass> classes;
        std::size_t quant = 0;
        PlanSettings settings;
        ContextFreeParts parts;
    };
    thread_local std::deque<Entry> entries;
    std::size_t index = 0;
    while (index < db.quants.size() && &db.quants[index] != &quant) ++index;
    if (index == db.quants.size()) {
        return context_free_parts(db, model, quant, s);  // a quantization of a file's own
    }
    PlanSettings key = s;
    key.estimate.context = 0;
    for (const Entry& e : entries) {
        if (e.quant == index && e.settings == key && e.model == model && e.quants == db.quants &&
            e.classes == db.card_classes) {
            return e.parts;
        }
    }
    CANITRUN_TRY_ASSIGN(auto parts, context_free_parts(db, model, quant, s));
    if (entries.size() == 8) entries.pop_front();
    entries.push_back({model, db.quants, db.card_classes, index, key, parts});
    return parts;
}

Result<bool> add_rows_and_matrix(ModelReport& r, const Database& db, const Model& model,
                                 const PlanSettings& s, const ContextFreeParts& parts) {
    for (const auto& q : db.quants) {
        if ((!q.page_table && &q != r.quant) || !*rule_loads(s, q)) continue;
        CANITRUN_TRY_ASSIGN(auto e, rule_estimate(model, q, s));
        // A model whose tensors llama.cpp's rules cannot lay out (the quick rule's fallback) has
        // no file size to show: the row says so rather than the page failing.
        const auto file = gguf_download_bytes(model, q);
        r.rows.push_back({&q, e, file ? *file : std::nullopt});
    }
    r.matrix_contexts = matrix_contexts(model);
    for (const auto& [i, cells] : parts.grid) r.matrix.push_back({&db.quants[i], cells});
    return true;
}

Result<bool> add_kv_comparison(ModelReport& r, const Model& model, const PlanSettings& s,
                               const ContextFreeParts& parts) {
    if (parts.curve.empty()) {
        return fail(ErrorKind::bad_input, model.id + " has no context window", "");
    }
    r.kv_curve = parts.curve;
    // The full window is the curve's last point: the table and the chart are one estimate.
    const KvCurvePoint& full = r.kv_curve.back();
    CANITRUN_TRY_ASSIGN(auto at_all, all_attention_estimate(model, *r.quant, s));
    r.kv_full_context = full.this_model_bytes;
    r.total_full_context = full.this_model_total_bytes;
    r.kv_all_attention_full_context = full.all_attention_bytes;
    r.total_all_attention_full_context = full.all_attention_total_bytes;
    r.kv_at_context = r.selected.term(TermKind::kv_cache);
    r.kv_all_attention_at_context = at_all.term(TermKind::kv_cache);
    r.recurrent_state = recurrent_state_bytes(model);
    if (s.rule == Rule::llamacpp) {
        CANITRUN_TRY_ASSIGN(auto growth, server_growth(model, *r.quant, s));
        r.growth = growth;
    }
    // Growth up to the full window exists only below it; past it there is none to show.
    if (r.options.context < model.context_native) {
        r.kv_growth_to_full = checked::sub(r.kv_full_context, r.kv_at_context);
        r.kv_all_attention_growth_to_full =
            checked::sub(r.kv_all_attention_full_context, r.kv_all_attention_at_context);
    }
    return true;
}

Result<bool> add_verdicts(ModelReport& r, const Database& db, const Model& model,
                          const ReportOptions& options, const PlanSettings& s) {
    CANITRUN_TRY_ASSIGN(auto verdicts, plan_gpu_verdicts(db, model, *r.quant, s, options.fit));
    r.gpus = verdicts.gpus;
    r.smallest_gpu = verdicts.smallest;
    r.gpu_verdicts = verdicts.verdicts;
    // The 16 and 24 GB cards of the reference page's questions, in one call that plans each
    // quantization's parts once for both.
    constexpr std::uint64_t kCardsGb[] = {16, 24};
    std::vector<Bytes> budgets;
    for (const std::uint64_t gb : kCardsGb) budgets.push_back(gb * kGB);
    const auto quants = budget_quants(db, s);
    CANITRUN_TRY_ASSIGN(auto answers,
                        plan_budgets(model, *r.quant, quants, s, budgets, options.fit.ram));
    for (std::size_t i = 0; i < std::size(kCardsGb); ++i) {
        r.card_answers.push_back(
            {kCardsGb[i], answers[i].usable, answers[i].fits, answers[i].best});
    }
    if (options.vram_budget) {
        CANITRUN_TRY_ASSIGN(
            const BudgetAnswer a,
            plan_budget(model, *r.quant, quants, s, *options.vram_budget, options.fit.ram));
        r.vram = VramAnswer{*options.vram_budget, a.usable, a.fits, a.best, a.best_offload};
    }
    if (options.hardware) {
        CANITRUN_TRY_ASSIGN(auto h, build_hardware_report(db, model, *r.quant, s, *options.hardware,
                                                          options.placement));
        r.hardware = h;
    }
    return true;
}

// Each editorial claim asked as the FAQ's cards are: a budget of the card's size, natively.
Result<bool> add_claim_checks(ModelReport& r, const Database& db, const Model& model,
                              const ReportOptions& options, const PlanSettings& s) {
    for (const EditorialClaim& c : model.editorial.claims) {
        const auto found = db.find_quant(c.quant);
        if (!found) continue;  // data_consistency_test requires every claim's quantization
        const Quant* q = *found;
        PlanSettings at = s;
        if (c.context > 0) at.estimate.context = c.context;
        CANITRUN_TRY_ASSIGN(auto answer,
                            plan_budget(model, *q, {q}, at, c.card_gb * kGB, options.fit.ram));
        r.claim_checks.push_back({&c, q, at.estimate.context, answer.fits});
    }
    return true;
}

// The rows' file types that the model's publisher makes by a recipe of its own under the plain
// name (a database model's; a file's own types are read from it).
Result<void> add_publisher_mixes(ModelReport& r, const Model& model) {
    if (model.run.gguf_plain_recipes.empty() || r.settings.file) return {};
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    for (const QuantRow& row : r.rows) {
        if (const PlainFileRecipe* p = published_recipe(prepared->layout, row.quant->id))
            r.publisher_mixes.push_back(*p);
    }
    return {};
}

}  // namespace

Result<ModelReport> build_model_report(const Database& db, const Model& model,
                                       const ReportOptions& options) {
    ModelReport r;
    r.model = &model;
    r.quant = options.quant ? options.quant : db.default_quant(model);
    r.options = options.estimate;
    if (!options.context_explicit && model.context_native > 0 && options.plan.n_seq <= 1) {
        r.options.context = std::min(r.options.context, default_context(model));
    }
    r.fit = options.fit;
    // With several sequences each gets n_ctx / n_seq cells: that is what the window bounds.
    CANITRUN_TRY_ASSIGN(
        auto status,
        check_context(model, llama_sequence_context(r.options.context, options.plan.n_seq)));
    r.context_status = status;
    const PlanSettings s = settings_for(model, r, options, r.rule_note);
    r.rule = s.rule;
    r.settings = s;
    CANITRUN_TRY(catch_overflow(
        [&]() -> Result<void> {
            CANITRUN_TRY_ASSIGN(r.selected, rule_estimate(model, *r.quant, s));
            CANITRUN_TRY_ASSIGN(const auto parts,
                                remembered_context_free_parts(db, model, *r.quant, s));
            CANITRUN_TRY(add_rows_and_matrix(r, db, model, s, parts));
            CANITRUN_TRY(add_kv_comparison(r, model, s, parts));
            CANITRUN_TRY(add_verdicts(r, db, model, options, s));
            CANITRUN_TRY(add_claim_checks(r, db, model, options, s));
            if (s.rule != Rule::quick) {
                CANITRUN_TRY(add_publisher_mixes(r, model));
                CANITRUN_TRY_ASSIGN(const Estimate quick, estimate(model, *r.quant, r.options));
                r.quick_contrast = ModelReport::QuickContrast{
                    quick.total(), smallest_card_class(quick.total(), db.card_classes)};
            }
            return {};
        },
        [&] {
            return overflow_error("the estimate for " + model.id,
                                  "lower --ctx, or check the model's entry in the database");
        }));
    return r;
}

}  // namespace canitrun
