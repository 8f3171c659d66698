#include "canitrun/layer_runs.hpp"
#include "canitrun/placement.hpp"

#include <cstdint>

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

LayerPart layer(LayerKind kind, Bytes weights, Bytes routed, Bytes active, Bytes kv) {
    LayerPart l;
    l.kind = kind;
    l.weights = weights;
    l.routed_experts = routed;
    l.active_weights = active;
    l.kv_cache = kv;
    return l;
}

}  // namespace

// Three layers by hand: a full one (100 B, KV 10), a sliding one (200 B, KV 20) and an MLA
// layer with routed experts (1,000 B, 800 of them experts, a token reading 300: the 200 B
// outside the experts and 100 B of experts; KV 30).
TEST_CASE("layer runs: a run's sums are the difference of two running sums") {
    ModelParts parts;
    parts.layers = {layer(LayerKind::full, 100, 0, 100, 10),
                    layer(LayerKind::sliding, 200, 0, 200, 20),
                    layer(LayerKind::mla, 1000, 800, 300, 30)};
    const LayerRuns runs(parts);
    REQUIRE(runs.kept_for(3));
    CHECK_FALSE(runs.kept_for(2));
    const LayerRunSums last_two = runs.between(1, 3);
    CHECK(last_two.weights == 1200);
    CHECK(last_two.kv_cache == 50);
    CHECK(last_two.sliding_kv == 20);
    CHECK(last_two.active_weights == 500);
    CHECK(last_two.active_experts == 100);  // 300 - (1,000 - 800)
    CHECK(last_two.moe_layers == 1);
    CHECK(last_two.mla_layers == 1);
    const LayerRunSums walked = sum_layers(parts, 1, 3);
    CHECK(walked.weights == 1200);
    CHECK(walked.active_experts == 100);
    CHECK(runs.between(0, 1).weights == 100);
    CHECK(runs.between(2, 2).weights == 0);
}

TEST_CASE("layer runs: not kept where the sums over every layer overflow") {
    ModelParts parts;
    parts.layers = {layer(LayerKind::full, UINT64_MAX, 0, 1, 0),
                    layer(LayerKind::full, 1, 0, 1, 0)};
    CHECK_FALSE(LayerRuns(parts).kept_for(2));
    CHECK_THROWS_AS(sum_layers(parts, 0, 2), OverflowError);
    CHECK(sum_layers(parts, 1, 2).weights == 1);
}

// The running sums change no placement: the 70B of placement_test.cpp on two RTX 3090s gives
// GPU 0 41 layers of 517,109,862 B and the input embedding (634,980,547 B) either way.
TEST_CASE("layer runs: place() with the running sums places as without") {
    const ModelParts parts = test::parts_of("llama-3.3-70b", "Q4_K_M", 4096);
    const Hardware hw = test::hardware_of({"rtx-3090", "rtx-3090"});
    PlacementOptions options;
    options.tensor_split = {30, 51};
    const auto walked = place(parts, hw, options);
    const auto summed = place(parts, hw, options, LayerRuns(parts));
    REQUIRE(walked);
    REQUIRE(summed);
    CHECK(summed->gpus[0].layers == 30);
    CHECK(summed->gpus[0].weights == 634980547ULL + 30ULL * 517109862ULL);
    for (std::size_t d = 0; d < 2; ++d) {
        CHECK(summed->gpus[d].weights == walked->gpus[d].weights);
        CHECK(summed->gpus[d].kv_cache == walked->gpus[d].kv_cache);
        CHECK(summed->gpus[d].read_per_token == walked->gpus[d].read_per_token);
        CHECK(summed->gpus[d].total() == walked->gpus[d].total());
    }
}
