#pragma once
// The page's chart: KV cache (and the total) against context, from a short context to the
// model's full window, for the model and for its all-attention twin (the same weights with
// every layer keeping a full KV cache). Every point is an estimate by the plan's rule, so the
// chart, the "What a full context costs" table and the JSON agree to the byte.

#include <cstdint>
#include <functional>
#include <vector>

#include "canitrun/error.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/plan_settings.hpp"

namespace canitrun {

struct KvCurvePoint {
    std::uint64_t context = 0;
    Bytes this_model_bytes = 0;     // KV cache of the model
    Bytes all_attention_bytes = 0;  // KV cache if every layer used full attention
    Bytes this_model_total_bytes = 0;
    Bytes all_attention_total_bytes = 0;
};

// The contexts a curve is drawn at: `points` evenly spaced steps up to the window, the last
// exactly the window (fewer when the window is too short for that many distinct steps).
std::vector<std::uint64_t> kv_curve_contexts(std::uint64_t window, std::size_t points = 16);

// The estimate of the model if every layer used full attention with the model's attention
// dims and the same weights. Quick rule: the page's own comparison (weights + KV + 12 %).
// llama.cpp rule: the model's buffers with its KV cells replaced by the twin's (and no
// recurrent state); the compute buffer is left as the model's.
Result<Estimate> all_attention_estimate(const Model& model, const Quant& quant,
                                        const PlanSettings& settings);

// The curve for a database model at the quantization, by the settings' rule.
Result<std::vector<KvCurvePoint>> kv_curve(const Model& model, const Quant& quant,
                                           const PlanSettings& settings);

// The curve from two estimators (for a model file, whose weights are the file's own): each
// takes a context and returns the estimate there; the KV is each estimate's "kv_cache" term.
struct CurveEstimators {
    std::function<Result<Estimate>(std::uint64_t context)> this_model;
    std::function<Result<Estimate>(std::uint64_t context)> all_attention;
};
Result<std::vector<KvCurvePoint>> kv_curve(std::uint64_t window, const CurveEstimators& at);

}  // namespace canitrun
