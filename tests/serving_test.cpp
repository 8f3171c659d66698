// Several users on one plan: llama-server's --parallel slots sharing its cells, and the batched
// decode that serves them, derived by hand.

#include "canitrun/serving.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("serving: N users of C tokens are N sequences over N x C cells") {
    PlanSettings base;
    const auto s = settings_for_users(base, 4, 32768).value();
    CHECK(s.n_seq == 4);
    CHECK(s.estimate.context == 131072);
    CHECK_FALSE(settings_for_users(base, 0, 8192).has_value());
    CHECK_FALSE(settings_for_users(base, 257, 8192).has_value());  // LLAMA_MAX_SEQ is 256
}

TEST_CASE("serving: llama.cpp --parallel 4 at 32k each on a 24 GB card") {
    const Model& m = test::model("llama-3.1-8b");
    const Hardware h = test::hardware_of({"rtx-4090"});
    PlanSettings s;
    s.estimate.context = 32768;
    const auto c = llamacpp_capacity(m, test::quant("Q4_K_M"), h, s).value();
    // Each user's cache: 32768 cells x 32 layers x 2 (K, V) x 8 heads x 128 x 2 bytes = 16 GiB
    // for four. With 4.9 GB of Q4_K_M weights, the compute buffer, the CUDA context and the
    // 1 GiB margin, four users come to about 22.4 GiB of the card's 24 GiB; a fifth user's
    // 4 GiB does not fit.
    CHECK(c.max_users == 4);
    REQUIRE(c.answer.plan.kind == PlanKind::native);
    CHECK(c.answer.settings.n_seq == 4);
    CHECK(c.answer.settings.estimate.context == 131072);
    CHECK(c.answer.plan.placement.gpus.at(0).kv_cache == 4ULL * 32768 * 32 * 2 * 8 * 128 * 2);
    CHECK(c.speed.users == 4);
    CHECK(c.speed.total_tokens_per_s == Approx(4 * c.speed.per_user_tokens_per_s));
}

TEST_CASE("serving: one user decodes as the single-sequence estimate at a full cache") {
    const Model& m = test::model("llama-3.1-8b");
    const Hardware h = test::hardware_of({"rtx-4090"});
    PlanSettings s;
    s.estimate.context = 8192;
    const auto a = answer_for(m, test::quant("Q4_K_M"), h, s).value();
    const auto one = batched_decode(m, test::quant("Q4_K_M"), a.plan.placement, h, 8192, 1);
    REQUIRE(a.speed.decode_at_context.has_value());
    CHECK(one.per_user_tokens_per_s == Approx(*a.speed.decode_at_context));
}

TEST_CASE("serving: four users share one read of the weights") {
    const Model& m = test::model("llama-3.1-8b");
    const Hardware h = test::hardware_of({"rtx-4090"});
    PlanSettings s;
    s.estimate.context = 8192;
    const auto one_plan = answer_for(m, test::quant("Q4_K_M"), h, s).value();
    const auto one = batched_decode(m, test::quant("Q4_K_M"), one_plan.plan.placement, h, 8192, 1);
    const auto four_settings = settings_for_users(s, 4, 8192).value();
    const auto four_plan = answer_for(m, test::quant("Q4_K_M"), h, four_settings).value();
    const auto four =
        batched_decode(m, test::quant("Q4_K_M"), four_plan.plan.placement, h, 32768, 4);
    // One step reads 4.9 GB of weights and 1.07 GB of cache for one user, the same weights and
    // 4.3 GB for four: about 1.5x the time for 4x the tokens, so the total grows 2-4x and each
    // user is slower than alone.
    CHECK(four.per_user_tokens_per_s < one.per_user_tokens_per_s);
    CHECK(four.total_tokens_per_s > 2 * one.total_tokens_per_s);
    CHECK(four.total_tokens_per_s < 4 * one.total_tokens_per_s);
}

TEST_CASE("serving: vLLM's 55 sequences on one H100 read the weights once a step") {
    const Model& m = test::model("llama-3.1-8b");
    VllmOptions o = vllm_serve_defaults(80ULL << 30, false);
    o.context = 8192;
    const auto e = estimate_vllm(m, test::quant("BF16"), o).value();
    const std::vector<GpuDevice> devices = {device_for(test::gpu("h100-sxm"))};
    const auto one = vllm_batched_decode(m, e, devices, 1);
    const auto many = vllm_batched_decode(m, e, devices, 55);
    // One step reads 16.06e9 bytes of weights and 512 pages x 2,097,152 bytes a sequence, at
    // the datacenter class's bandwidth share a, plus 32 layers x its per-layer time k.
    const SpeedClassCoefficients& c = fitted_speed_model().of(SpeedClass::nvidia_datacenter);
    const double bw = test::gpu("h100-sxm").bandwidth_gbps * 1e9;
    const auto step = [&](double users) {
        return (16.06e9 + users * 512 * 2097152.0) / bw * c.bandwidth + 32 * c.layer_s;
    };
    CHECK(1.0 / one.per_user_tokens_per_s == Approx(step(1)));
    CHECK(1.0 / many.per_user_tokens_per_s == Approx(step(55)));
    // so 55 users get more than ten times one user's total
    CHECK(many.total_tokens_per_s > 10 * one.total_tokens_per_s);
    CHECK_FALSE(many.compute_bound);
    CHECK(many.total_tokens_per_s == Approx(55 * many.per_user_tokens_per_s));
}
