#include "canitrun/kv_curve.hpp"

#include "canitrun/kv_cache.hpp"

#include "canitrun/checked.hpp"
#include "canitrun/plan_views.hpp"

namespace canitrun {

std::vector<std::uint64_t> kv_curve_contexts(std::uint64_t window, std::size_t points) {
    std::vector<std::uint64_t> out;
    if (window == 0 || points == 0) return out;
    for (std::size_t k = 1; k <= points; ++k) {
        const std::uint64_t ctx = checked::mul_div_floor(window, k, points);
        if (ctx > 0 && (out.empty() || out.back() != ctx)) out.push_back(ctx);
    }
    return out;
}

Result<Estimate> all_attention_estimate(const Model& model, const Quant& quant,
                                        const PlanSettings& settings) {
    if (settings.rule == Rule::quick) {
        return estimate_all_attention(model, quant, settings.estimate);
    }
    CANITRUN_TRY_ASSIGN(auto e, rule_estimate(model, quant, settings));
    CANITRUN_TRY_ASSIGN(auto o, llamacpp_options(model, settings, Backend::cuda));
    const Model twin = all_attention_variant(model);
    CANITRUN_TRY_ASSIGN(auto caches, llamacpp_group_caches(twin, o));
    Bytes kv = 0;
    const std::vector<std::uint64_t> owners = kv_owner_counts(twin);
    for (std::size_t i = 0; i < caches.size(); ++i) {
        kv = checked::add(kv, checked::mul(caches[i].kv, owners[i]));
    }
    for (auto& t : e.terms) {
        if (t.kind == TermKind::kv_cache) t.bytes = kv;
        if (t.kind == TermKind::recurrent_state) t.bytes = 0;
    }
    return e;
}

Result<std::vector<KvCurvePoint>> kv_curve(const Model& model, const Quant& quant,
                                           const PlanSettings& settings) {
    const auto at = [&](std::uint64_t context) {
        PlanSettings s = settings;
        s.estimate.context = context;
        return s;
    };
    return kv_curve(model.context_native,
                    {[&](std::uint64_t c) { return rule_estimate(model, quant, at(c)); },
                     [&](std::uint64_t c) { return all_attention_estimate(model, quant, at(c)); }});
}

Result<std::vector<KvCurvePoint>> kv_curve(std::uint64_t window, const CurveEstimators& at) {
    std::vector<KvCurvePoint> out;
    for (const std::uint64_t ctx : kv_curve_contexts(window)) {
        CANITRUN_TRY_ASSIGN(auto own, at.this_model(ctx));
        CANITRUN_TRY_ASSIGN(auto twin, at.all_attention(ctx));
        out.push_back({ctx, own.term(TermKind::kv_cache), twin.term(TermKind::kv_cache),
                       own.total(), twin.total()});
    }
    return out;
}

}  // namespace canitrun
