#include "canitrun/hardware_questions.hpp"

#include "canitrun/hardware_report.hpp"

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

Hardware one(const std::string& id) {
    return test::hardware_of({id});
}

}  // namespace

// Qwen3.5-35B-A3B at Q3_K_M (3.847 bits per weight) on an RTX 4090 (24 GiB =
// 25,769,803,776 B), by hand: weights 35e9 x 3.847 / 8 = 16,830,625,000; KV 20,480 B per token
// (10 full layers x 2 heads x 512 x 2 B); fits while X + floor(0.12 X) <= 25,769,803,776 with
// X = 16,830,625,000 + 20,480 c, i.e. X <= 23,008,753,371, c <= 301,666.7. The largest multiple
// of 256 below is 301,568: past the 262,144 native window, within the 1,010,000 YaRN extension.
TEST_CASE("largest context of qwen3.5-35b-a3b on an RTX 4090 at Q3_K_M") {
    const auto c = max_native_context(test::model("qwen3.5-35b-a3b"), test::quant("Q3_K_M"),
                                      one("rtx-4090"), {});
    REQUIRE(c);
    REQUIRE(c->has_value());
    CHECK(**c == 301568);
}

TEST_CASE("largest context is capped at the longest the model supports") {
    // Llama 3.1 8B on an 80 GB card: 131,072 tokens of KV (16 GiB) plus 5 GB of weights fit.
    const auto c =
        max_native_context(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), one("h100-sxm"), {});
    REQUIRE(c);
    CHECK(c->value_or(0) == 131072);
}

// On an RTX 4090 at 8k a format fits while (W + 167,772,160) x 1.12 <= 25,769,803,776, i.e.
// W <= 22,840,981,211 B, i.e. at most 22,840,981,211 x 8 / 35e9 = 5.2208 bits per weight. Of
// the formats at or under that rate the best-ranked is EXL3-5.0 (4.7454 bits, rank 10, CUDA:
// the 4090 has it); Q5_K_S (5.5704) and EXL2-6.0 (5.6274) rank higher but are too large.
TEST_CASE("best quantization for hardware: the best-ranked format under the rate that fits") {
    std::vector<const Quant*> quants;
    for (const auto& q : test::database().quants) quants.push_back(&q);
    const auto best =
        best_quant_for_hardware(test::model("qwen3.5-35b-a3b"), quants, one("rtx-4090"), {});
    REQUIRE(best);
    REQUIRE(best->has_value());
    CHECK((*best)->plan.kind == PlanKind::native);
    CHECK((*best)->quant->id == "EXL3-5.0");
}

TEST_CASE("CUDA-only formats never fit an Apple machine") {
    const auto c = max_native_context(test::model("qwen3.5-35b-a3b"), test::quant("NVFP4"),
                                      one("m4-max-128gb"), {});
    REQUIRE(c);
    CHECK_FALSE(c->has_value());
}
