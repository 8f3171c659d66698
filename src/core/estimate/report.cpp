#include "canitrun/report.hpp"

#include <algorithm>

#include "canitrun/checked.hpp"
#include "canitrun/context_window.hpp"

namespace canitrun {
namespace {

// The budget questions choose among the quantizations the page's table shows.
std::vector<const Quant*> page_quants(const Database& db) {
    std::vector<const Quant*> out;
    for (const auto& q : db.quants) {
        if (q.page_table) out.push_back(&q);
    }
    return out;
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

Result<ModelReport> build_model_report(const Database& db, const Model& model,
                                       const ReportOptions& options) {
    ModelReport r;
    r.model = &model;
    r.quant = options.quant ? options.quant : db.recommended_quant();
    r.options = options.estimate;
    r.fit = options.fit;
    auto status = check_context(model, r.options.context);
    if (!status) return std::unexpected(status.error());
    r.context_status = *status;
    try {
        auto selected = estimate(model, *r.quant, r.options);
        if (!selected) return std::unexpected(selected.error());
        r.selected = *selected;

        for (const auto& q : db.quants) {
            if (!q.page_table && &q != r.quant) continue;
            auto e = estimate(model, q, r.options);
            if (!e) return std::unexpected(e.error());
            r.rows.push_back({&q, *e});
        }

        r.matrix_contexts = matrix_contexts(model);
        for (const auto& q : db.quants) {
            if (!q.page_matrix) continue;
            MatrixRow row{&q, {}};
            for (std::uint64_t ctx : r.matrix_contexts) {
                EstimateOptions o = r.options;
                o.context = ctx;
                auto e = estimate(model, q, o);
                if (!e) return std::unexpected(e.error());
                row.cells.push_back({e->total(), smallest_card_class(e->total(), db.card_classes)});
            }
            r.matrix.push_back(row);
        }

        EstimateOptions full = r.options;
        full.context = model.context_native;
        auto full_e = estimate(model, *r.quant, full);
        if (!full_e) return std::unexpected(full_e.error());
        auto full_all = estimate_all_attention(model, *r.quant, full);
        if (!full_all) return std::unexpected(full_all.error());
        r.kv_full_context = full_e->term("kv_cache");
        r.total_full_context = full_e->total();
        r.kv_all_attention_full_context = full_all->term("kv_cache");
        r.total_all_attention_full_context = full_all->total();
        r.kv_at_context = r.selected.term("kv_cache");
        r.kv_all_attention_at_context =
            all_attention_kv_cache_bytes(model, r.options.context, r.options.kv_type);
        r.recurrent_state = recurrent_state_bytes(model);
        // Growth up to the full window exists only below it; past it there is none to show.
        if (r.options.context < model.context_native) {
            r.kv_growth_to_full = checked::sub(r.kv_full_context, r.kv_at_context);
            r.kv_all_attention_growth_to_full =
                checked::sub(r.kv_all_attention_full_context, r.kv_all_attention_at_context);
        }

        const Bytes total = r.selected.total();
        r.smallest_gpu = smallest_gpu(db.gpus, *r.quant, total);
        r.gpus = gpus_for(db.gpus, *r.quant, total, options.fit);

        const std::vector<const Quant*> candidates = page_quants(db);
        if (options.vram_budget) {
            VramAnswer v;
            v.budget = *options.vram_budget;
            v.fits_recommended = total <= v.budget;
            auto best = best_quant_for_budget(model, candidates, v.budget, r.options);
            if (!best) return std::unexpected(best.error());
            v.best = *best;
            r.vram = v;
        }
        if (options.hardware) {
            auto h = build_hardware_report(db, model, *r.quant, r.options, *options.hardware,
                                           options.placement);
            if (!h) return std::unexpected(h.error());
            r.hardware = *h;
        }
    } catch (const OverflowError&) {
        return fail(ErrorKind::overflow,
                    "the estimate for " + model.id + " overflows 64-bit byte counts",
                    "lower --ctx, or check the model's entry in the database");
    }
    return r;
}

}  // namespace canitrun
