// The weight terms the snapshot keeps for each database model (kept_parts.hpp): the record's
// spelling worked out by hand, a round trip that reads one quantization of several, corrupt
// bytes refused, and every database model's kept terms equal to the live computation.

#include <string>
#include <utility>
#include <vector>

#include "canitrun/kept_parts.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/quantize_rules.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

LayerPart layer(Bytes weights, std::size_t group) {
    LayerPart l;
    l.kind = group == 0 ? LayerKind::full : LayerKind::linear;
    l.group = group;
    l.weights = weights;
    l.active_weights = weights;
    l.largest_tensor = weights / 2;
    return l;
}

}  // namespace

TEST_CASE("kept weight terms: the bytes of a record, worked out by hand") {
    ModelParts p;
    p.input_weights = 300;  // LEB128: 300 = 0b10_0101100 -> 0xac 0x02
    p.output_weights = 5;
    p.overhead_percent = 0;
    p.layers = {layer(8, 0), layer(8, 0), layer(8, 0)};
    const std::string kept = keep_weight_parts({{"Q8_0", p}});
    // id: 4 "Q8_0"; record: 300, 5, 0, no buffers (0); one distinct layer (kind full 0, group
    // 0, weights 8, routed 0, active 8, kv 0, recurrent 0, largest 4, largest expert 0); one
    // run: layer 0 three times. The record is 2 + 1 + 1 + 1 + 1 + 9 + 1 + 2 = 18 bytes.
    const std::string record(
        "\xac\x02\x05\x00\x00\x01\x00\x00\x08\x00\x08\x00\x00\x04\x00\x01\x00\x03", 18);
    CHECK(kept == std::string("\x04Q8_0\x12", 6) + record);
}

TEST_CASE("kept weight terms: each quantization read back alone, the stack's runs restored") {
    ModelParts a;
    a.input_weights = 1000;
    a.output_weights = 2000;
    a.overhead_percent = 0;
    a.layers = {layer(10, 0), layer(20, 1), layer(20, 1), layer(10, 0), layer(20, 1)};
    RuntimeBuffers b;
    b.output_head = 2000;
    b.output_duplicate = 7;
    a.buffers = b;
    ModelParts c = a;
    c.layers[2].routed_experts = 3;
    c.layers[2].largest_expert_tensor = 3;
    c.buffers.reset();
    const std::string kept = keep_weight_parts({{"Q4_K_M", a}, {"Q8_0", c}});
    const auto q4 = kept_weight_parts(kept, "Q4_K_M");
    REQUIRE(q4);
    REQUIRE(q4->has_value());
    CHECK(**q4 == a);
    const auto q8 = kept_weight_parts(kept, "Q8_0");
    REQUIRE(q8);
    REQUIRE(q8->has_value());
    CHECK(**q8 == c);
    CHECK((*q8)->layers.size() == 5);
    const auto none = kept_weight_parts(kept, "Q6_K");
    REQUIRE(none);
    CHECK_FALSE(none->has_value());
    CHECK_FALSE(kept_weight_parts("", "Q8_0")->has_value());
    // Cut short anywhere inside the record asked for, or its length past the end: an error.
    const auto q8_at = kept.find("Q8_0");
    for (std::size_t n = q8_at + 4; n < kept.size(); ++n) {
        CAPTURE(n);
        CHECK_FALSE(kept_weight_parts(std::string_view(kept).substr(0, n), "Q8_0"));
    }
    std::string bad = kept;
    bad[q8_at + 4] = '\x7f';  // the record's length past the end
    CHECK_FALSE(kept_weight_parts(bad, "Q8_0"));
}

// The snapshot generator keeps them with llamacpp_weight_parts at every file type `fit` may
// choose, so that `fit` plans a model without its layout; here each is worked out again.
TEST_CASE("the snapshot's weight terms are every database model's, at every file type") {
    const Database& db = test::database();
    REQUIRE(db.weight_parts.size() == db.models.size());
    std::size_t kept_count = 0;
    for (std::size_t i = 0; i < db.models.size(); ++i) {
        CAPTURE(db.models[i].id);
        for (const Quant& q : db.quants) {
            CAPTURE(q.id);
            const auto kept = kept_weight_parts(db.weight_parts[i], q.id);
            REQUIRE(kept);
            if (!q.recipe_base.empty() || !is_llama_file_type(q)) {
                CHECK_FALSE(kept->has_value());
                continue;
            }
            const auto live = llamacpp_weight_parts(db.models[i], q);
            REQUIRE(kept->has_value() == live.has_value());
            if (!live) continue;
            CHECK(**kept == *live);
            ++kept_count;
        }
    }
    // Most models at most file types: the tensor layouts cover every database model.
    CHECK(kept_count > db.models.size() * 20);
}
