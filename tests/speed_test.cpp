#include "canitrun/speed.hpp"

#include <string>

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

// Qwen3.5-35B-A3B, Q4_K_M, 8k, on an RTX 5090 (1792 GB/s), by hand. Shares of
// W = 21,319,375,000 over 34,660,352,000 architecture params (see placement_test.cpp):
//   a token reads per linear layer floor(W x (33,718,272 + 3,670,016 + 8 x 3,145,728) /
//   34,660,352,000) = 38,476,659 bytes, per full layer floor(W x (27,262,976 + 3,670,016 +
//   25,165,824) / ...) = 34,506,045, the output head floor(W x 508,559,360 / ...) = 312,811,817,
//   and the whole KV cache, 167,772,160:
//   30 x 38,476,659 + 10 x 34,506,045 + 312,811,817 + 167,772,160 = 1,979,944,197 bytes.
//   Decode: 1792e9 x 0.70 / 1,979,944,197 = 633.55 tokens/s.
TEST_CASE("decode speed of qwen3.5-35b-a3b on an RTX 5090 comes from its bandwidth") {
    const ModelParts parts = test::parts_of("qwen3.5-35b-a3b", "Q4_K_M", 8192);
    const Hardware h = test::hardware_of({"rtx-5090"});
    auto p = place(parts, h, {});
    REQUIRE(p);
    CHECK(p->gpus[0].read_per_token == 1979944197ULL);
    const Speed s = estimate_speed(*p, h, 3000000000ULL);
    CHECK(s.decode_tokens_per_s == Approx(1792e9 * 0.70 / 1979944197.0));
    CHECK(s.decode_tokens_per_s == Approx(633.55).epsilon(1e-4));
    // Prefill: 2 x 3e9 FLOPs per token at 209.5 TFLOPS x 0.8 = 27,933 tokens/s.
    REQUIRE(s.prefill_tokens_per_s);
    CHECK(*s.prefill_tokens_per_s == Approx(209.5e12 * 0.8 / 6e9));
}

TEST_CASE("experts in RAM slow decode by the RAM path") {
    const ModelParts parts = test::parts_of("qwen3.5-35b-a3b", "Q4_K_M", 8192);
    Hardware h = test::hardware_of({"rtx-5090"});
    h.ram_bandwidth_gbps = 100;
    auto all = place(parts, h, {});
    auto offloaded = place(parts, h, test::split_options(std::nullopt, 40));
    REQUIRE(all);
    REQUIRE(offloaded);
    // Every layer's active routed experts (8 of 256, about floor(W x 25,165,824 /
    // 34,660,352,000) = 15,479,347 bytes a layer) are read from RAM instead of the GPU; what a
    // token reads in all is unchanged.
    CHECK(offloaded->ram.read_per_token + offloaded->gpus[0].read_per_token ==
          all->gpus[0].read_per_token);
    const double gpu_s = static_cast<double>(offloaded->gpus[0].read_per_token) / (1792e9 * 0.7);
    const double ram_s = static_cast<double>(offloaded->ram.read_per_token) / (100e9 * 0.6);
    CHECK(estimate_speed(*offloaded, h, 3000000000ULL).decode_tokens_per_s ==
          Approx(1 / (gpu_s + ram_s)));
}

TEST_CASE("no GPU: decode from RAM and no prefill figure") {
    const Hardware h = test::hardware_of({}, 64);
    auto p = place(test::parts_of("qwen3.5-35b-a3b", "Q4_K_M", 8192), h, {});
    REQUIRE(p);
    CHECK(p->ram.read_per_token == 1979944197ULL);
    const Speed s = estimate_speed(*p, h, 3000000000ULL);
    CHECK(s.decode_tokens_per_s == Approx(76.8e9 * 0.6 / 1979944197.0));
    CHECK_FALSE(s.prefill_tokens_per_s.has_value());
}

namespace {

// Prefill tokens/s of Llama 3.1 8B (8.03e9 active parameters) at Q4_K_M, 8k, whole on one GPU.
double llama_8b_prefill_on(const std::string& gpu) {
    const ModelParts parts = test::parts_of("llama-3.1-8b", "Q4_K_M", 8192);
    const Hardware h = test::hardware_of({gpu});
    const auto p = place(parts, h, {});
    REQUIRE(p);
    const Speed s = estimate_speed(*p, h, 8030000000ULL);
    REQUIRE(s.prefill_tokens_per_s);
    return *s.prefill_tokens_per_s;
}

}  // namespace

// Pascal runs FP16 at 1/64 of FP32 (the GTX 1080 Ti's 0.177 TFLOPS); llama.cpp computes in FP32
// and int8 there, so prefill takes the FP32 figure, 11.34 TFLOPS (TechPowerUp): Llama 3.1 8B's
// 8.03e9 params x 2 FLOPs a token at 11.34e12 x 0.8 = 564.9 tokens/s, not 8.8.
TEST_CASE("prefill on Pascal uses its FP32 rate, not its 1/64 FP16 rate") {
    const double prefill = llama_8b_prefill_on("gtx-1080-ti");
    CHECK(prefill == Approx(11.34e12 * 0.8 / (2 * 8.03e9)));
    CHECK(prefill == Approx(564.9).epsilon(1e-3));
}

// Apple gives M1 and M2 only an FP32 figure (the M2 Max's 13.6 TFLOPS), and they run FP16 at that
// rate: a prefill figure where there was none.
TEST_CASE("prefill on an M2 Max comes from Apple's FP32 figure") {
    CHECK(llama_8b_prefill_on("m2-max-64gb") == Approx(13.6e12 * 0.8 / (2 * 8.03e9)));
}
