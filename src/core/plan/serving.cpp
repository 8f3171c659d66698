#include "canitrun/serving.hpp"

#include <algorithm>
#include <cmath>

#include "canitrun/param_count.hpp"

namespace canitrun {

Result<PlanSettings> settings_for_users(const PlanSettings& base, std::uint64_t users,
                                        std::uint64_t per_user_context) {
    if (users == 0 || users > kLlamaMaxSequences) {
        return fail(ErrorKind::bad_input,
                    "--users must be between 1 and " + std::to_string(kLlamaMaxSequences),
                    "llama.cpp runs at most 256 sequences (LLAMA_MAX_SEQ)");
    }
    PlanSettings s = base;
    s.n_seq = users;
    CANITRUN_TRY_ASSIGN(
        s.estimate.context,
        catch_overflow([&] { return checked::mul(per_user_context, users); },
                       [] { return overflow_error("--users x --ctx", "lower --ctx or --users"); }));
    return s;
}

namespace {

// Of E experts with k routed per token, the share N tokens touch at least once, over k / E:
// how many times one token's expert reads a batch reads.
double expert_factor(const Model& model, std::uint64_t users) {
    if (!model.is_moe() || model.arch.moe->experts == 0) return 1;
    const auto e = static_cast<double>(model.arch.moe->experts);
    const auto k = static_cast<double>(model.arch.moe->experts_per_token);
    if (k <= 0 || k >= e) return 1;
    const double touched = 1 - std::pow(1 - k / e, static_cast<double>(users));
    return touched / (k / e);
}

}  // namespace

namespace {

// The share of the weights one step of `users` tokens reads: all but the routed experts, and
// the routed experts the tokens touch.
double active_share(const Model& model, std::uint64_t users) {
    if (model.params_total == 0) return 1;
    const auto total = static_cast<double>(model.params_total);
    const auto active =
        static_cast<double>(model.params_active ? model.params_active : model.params_total);
    if (!model.is_moe() || model.arch.moe->experts == 0) return std::min(1.0, active / total);
    // A model too large to count is read whole.
    const std::optional<double> routed = routed_params_per_token(model);
    if (!routed) return 1;
    const double per_token = *routed;
    const double rest = std::max(0.0, active - per_token);
    return std::min(1.0, (rest + per_token * expert_factor(model, users)) / total);
}

}  // namespace

ServingSpeed vllm_batched_decode(const Model& model, const VllmEstimate& e,
                                 const std::vector<GpuDevice>& stage_devices, std::uint64_t users,
                                 const SpeedModel& m) {
    ServingSpeed r;
    r.users = users;
    if (users == 0 || stage_devices.size() != e.stages.size()) return r;
    const double share = active_share(model, users);
    const auto active_params =
        static_cast<double>(model.params_active ? model.params_active : model.params_total);
    double step = 0;
    for (std::size_t s = 0; s < e.stages.size(); ++s) {
        const VllmStage& st = e.stages[s];
        const GpuDevice& d = stage_devices[s];
        if (d.bandwidth_gbps <= 0) return r;
        const SpeedClassCoefficients& c = m.of(speed_class(d));
        const double reads = static_cast<double>(st.weights) * share +
                             static_cast<double>(users) * static_cast<double>(st.sequence_bytes);
        // The reads on one GPU of the stage, by the fitted decode rule.
        Hardware one;
        one.gpus.push_back(d);
        SpeedWork work;
        work.gpus.push_back({});
        work.gpus[0].read_bytes = reads;
        work.gpus[0].layers = st.layers;
        const double memory = decode_seconds(work, one, m);
        const double tflops = matrix_tflops(d);
        const double layer_share =
            static_cast<double>(st.layers) /
            static_cast<double>(std::max<std::uint64_t>(model.arch.layers, 1));
        const double arithmetic =
            tflops > 0
                ? 2.0 * active_params * layer_share / static_cast<double>(e.tensor_parallel) *
                      static_cast<double>(users) / (tflops * 1e12) * c.compute_float
                : 0;
        r.compute_bound = r.compute_bound || arithmetic > memory;
        step += std::max(memory, arithmetic);
    }
    if (step <= 0) return r;
    r.per_user_tokens_per_s = 1.0 / step;
    r.total_tokens_per_s = static_cast<double>(users) / step;
    return r;
}

ServingSpeed batched_decode(const Model& model, const Quant& quant, const Placement& placement,
                            const Hardware& hardware, std::uint64_t total_context,
                            std::uint64_t users, const SpeedModel& m) {
    ServingSpeed r;
    r.users = users;
    if (users == 0 || total_context == 0) return r;
    // Every cell full: one step reads the weights and all the users' caches.
    SpeedWork work = speed_work(model, quant, placement, total_context, {total_context - 1, 1});
    const double factor = expert_factor(model, users);
    for (std::size_t d = 0; d < work.gpus.size() && d < placement.gpus.size(); ++d) {
        work.gpus[d].read_bytes +=
            static_cast<double>(placement.gpus[d].active_experts) * (factor - 1);
    }
    work.ram.read_bytes += static_cast<double>(placement.ram.active_experts) * (factor - 1);
    const double reads = decode_seconds(work, hardware, m);
    if (reads <= 0) return r;
    // The batch's arithmetic: N tokens at the rate a prompt of that many runs, less the prompt's
    // per-micro-batch costs (its weight reads and per-layer launches), which are the step's
    // reads above: with them a one-user step would count its weights twice.
    SpeedModel arithmetic_only = m;
    arithmetic_only.weight_reread = 0;
    for (auto& c : arithmetic_only.classes) c.prefill_layer_s = 0;
    const auto prefill = prefill_seconds(
        speed_work(model, quant, placement, total_context, {0, std::max<std::uint64_t>(users, 1)}),
        hardware, arithmetic_only, std::max<std::uint64_t>(users, 1));
    const double arithmetic = prefill ? *prefill * static_cast<double>(users) : 0;
    const double step = std::max(reads, arithmetic);
    r.compute_bound = arithmetic > reads;
    r.per_user_tokens_per_s = 1.0 / step;
    r.total_tokens_per_s = static_cast<double>(users) / step;
    return r;
}

Result<ServingCapacity> llamacpp_capacity(const Model& model, const Quant& quant,
                                          const Hardware& hardware, const PlanSettings& settings) {
    ServingCapacity c;
    c.per_user_context = settings.estimate.context;
    // The probes read only whether the plan is native: the speed and measurements answer_for
    // adds are made once, for the count found.
    const auto native_at = [&](std::uint64_t users) -> Result<bool> {
        CANITRUN_TRY_ASSIGN(auto s, settings_for_users(settings, users, c.per_user_context));
        return native_for(model, quant, hardware, s);
    };
    // Doubling then bisection: memory grows with users, so fitting is monotone.
    std::uint64_t lo = 0, hi = 1;
    while (hi <= kLlamaMaxSequences) {
        CANITRUN_TRY_ASSIGN(const bool fits, native_at(hi));
        if (!fits) break;
        lo = hi;
        hi *= 2;
    }
    hi = std::min(hi, kLlamaMaxSequences + 1);
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        CANITRUN_TRY_ASSIGN(const bool fits, native_at(mid));
        (fits ? lo : hi) = mid;
    }
    c.max_users = lo;
    if (lo > 0) {
        CANITRUN_TRY_ASSIGN(auto s, settings_for_users(settings, lo, c.per_user_context));
        CANITRUN_TRY_ASSIGN(c.answer, answer_for(model, quant, hardware, s));
        c.speed = batched_decode(model, quant, c.answer.plan.placement, hardware,
                                 c.answer.settings.estimate.context, lo);
    }
    return c;
}

}  // namespace canitrun
