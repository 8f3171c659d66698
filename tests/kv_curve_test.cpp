// The page's chart as values: KV cache against context for a model and its all-attention twin,
// against KV bytes worked by hand (K and V, f16, per layer, head and token).

#include "canitrun/kv_curve.hpp"

#include "canitrun/layer_kinds.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;
using canitrun::test::model;
using canitrun::test::quant;

namespace {

PlanSettings llamacpp_at(std::uint64_t context) {
    PlanSettings s;
    s.estimate.context = context;
    return s;
}

}  // namespace

TEST_CASE("kv curve: evenly spaced contexts, the last exactly the window") {
    const auto c = kv_curve_contexts(262144);
    REQUIRE(c.size() == 16);
    CHECK(c.front() == 16384);
    CHECK(c.back() == 262144);
    for (std::size_t i = 1; i < c.size(); ++i) CHECK(c[i] - c[i - 1] == 16384);
    // A window too short for 16 distinct steps gets fewer; none is 0 or repeated.
    const auto tiny = kv_curve_contexts(5);
    CHECK(tiny == std::vector<std::uint64_t>{1, 2, 3, 4, 5});
    CHECK(kv_curve_contexts(0).empty());
}

TEST_CASE("kv curve: Qwen 3.5 35B-A3B against its all-attention twin, by hand") {
    // 10 Gated Attention layers x (K + V) x 2 KV heads x 256 dim x 2 bytes = 20,480 bytes per
    // token; all 40 layers: 81,920. At 262,144 tokens: 5,368,709,120 and 21,474,836,480 bytes,
    // the page's "5.4 GB" and "21.5 GB".
    const auto curve = kv_curve(model("qwen3.5-35b-a3b"), quant("Q4_K_M"), llamacpp_at(8192));
    REQUIRE(curve);
    REQUIRE(curve->size() >= 8);
    for (const auto& p : *curve) {
        CHECK(p.this_model_bytes == 20480 * p.context);
        CHECK(p.all_attention_bytes == 81920 * p.context);
        // Same weights and buffers: the totals differ by the KV cells and the 30 layers'
        // recurrent state, which the twin does not have.
        CHECK(p.all_attention_total_bytes > p.this_model_total_bytes);
    }
    CHECK(curve->back().context == 262144);
    CHECK(curve->back().this_model_bytes == 5368709120ULL);
    CHECK(curve->back().all_attention_bytes == 21474836480ULL);
}

TEST_CASE("kv curve: under the quick rule the full-window totals are the page's") {
    // The reference page: "the full-context total is 29.9 GB"; "the all-attention version ...
    // would need 47.9 GB at the same context".
    const auto curve =
        kv_curve(model("qwen3.5-35b-a3b"), quant("Q4_K_M"), quick_settings(EstimateOptions{}));
    REQUIRE(curve);
    CHECK(std::llround(static_cast<double>(curve->back().this_model_total_bytes) / 1e8) == 299);
    CHECK(std::llround(static_cast<double>(curve->back().all_attention_total_bytes) / 1e8) == 479);
}

TEST_CASE("kv curve: a stack that is all full attention is its own twin") {
    // Llama 3.1 8B: 32 layers x 2 x 8 KV heads x 128 dim x 2 bytes = 131,072 bytes per token.
    const auto curve = kv_curve(model("llama-3.1-8b"), quant("Q4_K_M"), llamacpp_at(8192));
    REQUIRE(curve);
    CHECK(curve->back().context == 131072);
    CHECK(curve->back().this_model_bytes == 131072ULL * 131072ULL);
    for (const auto& p : *curve) {
        CHECK(p.all_attention_bytes == p.this_model_bytes);
        CHECK(p.all_attention_total_bytes == p.this_model_total_bytes);
    }
}

TEST_CASE("layer pattern: the repeat and its tail, as llama.cpp places the layers") {
    // Qwen 3.5: full_attention_interval 4 -> three Gated DeltaNet then one Gated Attention, x10.
    const LayerPattern q = layer_pattern(model("qwen3.5-35b-a3b"));
    CHECK(q.period.size() == 4);
    CHECK(q.repeats == 10);
    CHECK(q.tail == 0);
    // Gemma 3 27B: every 6th layer global (llama.cpp set_swa_pattern(6)); 62 = 10 x 6 + 2.
    const LayerPattern g = layer_pattern(model("gemma-3-27b"));
    CHECK(g.period.size() == 6);
    CHECK(g.repeats == 10);
    CHECK(g.tail == 2);
    // One kind throughout: a period of one layer.
    const LayerPattern l = layer_pattern(model("llama-3.1-8b"));
    CHECK(l.repeats * l.period.size() + l.tail == 32);
}
