#include "canitrun/hardware_questions.hpp"

#include "canitrun/hardware_report.hpp"
#include "canitrun/report.hpp"
#include "canitrun/server_terms.hpp"

#include "catch.hpp"
#include "support/sampling.hpp"
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
                                      one("rtx-4090"), quick_settings());
    REQUIRE(c);
    REQUIRE(c->has_value());
    CHECK(**c == 301568);
}

TEST_CASE("largest context is capped at the longest the model supports") {
    // Llama 3.1 8B on an 80 GB card: 131,072 tokens of KV (16 GiB) plus 5 GB of weights fit.
    const auto c = max_native_context(test::model("llama-3.1-8b"), test::quant("Q4_K_M"),
                                      one("h100-sxm"), quick_settings());
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
    const auto best = best_quant_for_hardware(test::model("qwen3.5-35b-a3b"), quants,
                                              one("rtx-4090"), quick_settings());
    REQUIRE(best);
    REQUIRE(best->has_value());
    CHECK((*best)->plan.kind == PlanKind::native);
    CHECK((*best)->quant->id == "EXL3-5.0");
}

TEST_CASE("CUDA-only formats never fit an Apple machine") {
    const auto c = max_native_context(test::model("qwen3.5-35b-a3b"), test::quant("NVFP4"),
                                      one("m4-max-128gb"), quick_settings());
    REQUIRE(c);
    CHECK_FALSE(c->has_value());
}

namespace {

// The questions answered the slow, obvious way: every context step in a plain binary search over
// whole model parts, every quantization planned in full.
std::optional<std::uint64_t> plain_max_context(const Model& model, const Quant& quant,
                                               const Hardware& hardware,
                                               const PlanSettings& settings) {
    std::uint64_t lo = 0, hi = longest_supported_context(model) / kContextStep + 1;
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        PlanSettings o = settings;
        o.estimate.context = mid * kContextStep;
        // with the server's terms (a projector on GPU 0 counts against the context)
        const auto plan = plan_placement(plan_parts(model, quant, o).value(), hardware,
                                         server_placement_for(model, quant, hardware, o).value())
                              .value();
        const bool whole = plan.kind == PlanKind::native || plan.kind == PlanKind::cpu_only;
        (whole ? lo : hi) = mid;
    }
    if (lo == 0) return std::nullopt;
    return lo * kContextStep;
}

std::optional<std::string> plain_best_quant(const Model& model, const Database& db,
                                            const Hardware& hardware,
                                            const PlanSettings& settings) {
    const Quant* native = nullptr;
    const Quant* offload = nullptr;
    for (const Quant* q : llama_cpp_quants(db)) {
        if (!rule_offers(settings, *q).value()) continue;
        const auto a = answer_for(model, *q, hardware, settings).value();
        if (a.plan.kind == PlanKind::none) continue;
        const Quant*& slot = a.plan.kind == PlanKind::native ? native : offload;
        if (slot == nullptr || q->quality_rank < slot->quality_rank) slot = q;
    }
    if (native != nullptr) return native->id;
    if (offload != nullptr) return offload->id;
    return std::nullopt;
}

}  // namespace

// The fast paths (a weights-only bound, native plans before offload plans, a search that starts
// at the quick estimate's answer and rebuilds only the KV) must give exactly the plain answers.
TEST_CASE("fast longest-context and best-quant searches agree with the plain ones everywhere") {
    const Database& db = test::database();
    const auto rule = GENERATE(Rule::quick, Rule::llamacpp);
    PlanSettings asked = rule == Rule::quick ? quick_settings() : PlanSettings{};
    const std::vector<std::vector<std::string>> setups = {
        {"rtx-4090"}, {"rtx-3090", "rtx-3090"}, {"rtx-4090", "rtx-3060"}, {"h200-sxm"}};
    // Every model on two of the four setups, in turn (model i on setups i and i + 2, mod 4), so
    // each setup meets half the models: all four on every model took the sanitizer build past
    // its five minutes once the database passed 190 models.
    for (std::size_t k = 0; k < setups.size(); ++k) {
        const auto& gpus = setups[k];
        const Hardware hardware = test::hardware_of(gpus);
        for (std::size_t i = 0; i < db.models.size(); ++i) {
            if (i % 2 != k % 2 || !test::sampled(i / 2)) continue;
            const Model& model = db.models[i];
            INFO(model.id << " on " << gpus.front() << " x" << gpus.size() << " by "
                          << rule_name(rule));
            const PlanSettings s = settings_for_model(model, asked);
            const auto best = best_quant_for_hardware(model, llama_cpp_quants(db), hardware, s);
            REQUIRE(best);
            const auto plain = plain_best_quant(model, db, hardware, s);
            REQUIRE(best->has_value() == plain.has_value());
            if (!plain) continue;
            CHECK((*best)->quant->id == *plain);
            const auto fast = max_native_context(model, *(*best)->quant, hardware, s);
            REQUIRE(fast);
            CHECK(*fast == plain_max_context(model, *(*best)->quant, hardware, s));
        }
    }
}

TEST_CASE("vram budget: chooses among every quantization llama.cpp runs as --gpu does") {
    // A 16 GB budget for Qwen3-30B-A3B: among the page's ten only Q2_K fits, but a
    // quantization outside them (an i-quant between Q2_K and Q3_K_M) fits too and is better;
    // --gpu's best choice looks at every GGUF type, and --vram, a GPU of that size, must too.
    const Model& m = test::model("qwen3-30b-a3b");
    ReportOptions o;
    o.plan = test::settings_at_8k(m);
    o.estimate = o.plan.estimate;
    o.vram_budget = 16 * kGB;
    const ModelReport r = build_model_report(test::database(), m, o).value();
    REQUIRE(r.vram.has_value());
    REQUIRE(r.vram->best.has_value());
    const Quant& best = *r.vram->best->quant;
    CHECK(best.format == "gguf");
    CHECK(best.quality_rank < test::quant("Q2_K").quality_rank);
    bool among_page = false;
    for (const char* id : {"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K"}) {
        among_page = among_page || best.id == id;
    }
    CHECK_FALSE(among_page);
}

// native_for is plan_for's kind without its searches. Qwen3.5-35B-A3B at Q4_K_M (~4.8 bits,
// ~21 GB of weights) is whole on an RTX 4090 (24 GiB) and not on an RTX 4060 (8 GiB); with no
// GPU the plan is cpu_only, not native.
TEST_CASE("native_for: whether plan_for's plan is native, without its searches") {
    const Model& m = test::model("qwen3.5-35b-a3b");
    const PlanSettings s;  // the llama.cpp rule
    const auto agree = [&](const Quant& q, const Hardware& h, bool native) {
        CHECK(native_for(m, q, h, s).value() == native);
        CHECK((plan_for(m, q, h, s).value().kind == PlanKind::native) == native);
    };
    agree(test::quant("Q4_K_M"), one("rtx-4090"), true);
    agree(test::quant("Q4_K_M"), one("rtx-4060"), false);
    agree(test::quant("Q4_K_M"), test::hardware_of({}, 64), false);
}
