#include "canitrun/ggml_type.hpp"

#include <set>

#include "catch.hpp"

using namespace canitrun;

// Expected layouts worked out from the block structs in ggml-common.h, field by field.
TEST_CASE("ggml k-quant blocks hold 256 values in the bytes their fields add up to") {
    REQUIRE(find_ggml_type("q4_K")->block_bytes == 2 * 2 + 12 + 256 / 2);        // 144
    REQUIRE(find_ggml_type("q6_K")->block_bytes == 2 + 256 / 16 + 3 * 256 / 4);  // 210
    REQUIRE(find_ggml_type("q2_K")->block_bytes == 2 * 2 + 256 / 16 + 256 / 4);  // 84
    REQUIRE(find_ggml_type("Q3_K")->block_bytes == 2 + 256 / 4 + 256 / 8 + 12);  // 110
    REQUIRE(find_ggml_type("iq4_xs")->block_bytes == 2 + 2 + 256 / 64 + 256 / 2);
    REQUIRE(find_ggml_type(std::uint32_t{14})->name == "q6_K");
    REQUIRE(find_ggml_type("nvfp4")->block_elements == 64);
}

TEST_CASE("ggml ids are unique and removed ids are unknown") {
    std::set<std::uint32_t> ids;
    for (const auto& t : ggml_types()) REQUIRE(ids.insert(t.id).second);
    REQUIRE_FALSE(find_ggml_type(std::uint32_t{4}).has_value());
    REQUIRE_FALSE(find_ggml_type(std::uint32_t{31}).has_value());
    REQUIRE_FALSE(find_ggml_type(std::uint32_t{43}).has_value());
    REQUIRE_FALSE(find_ggml_type("q4_k_m").has_value());
}

TEST_CASE("ggml row bytes need whole blocks") {
    const auto q8 = *find_ggml_type("q8_0");
    REQUIRE(ggml_row_bytes(q8, 4096) == std::optional<Bytes>(4096 / 32 * 34));
    REQUIRE_FALSE(ggml_row_bytes(q8, 4095).has_value());
    REQUIRE(ggml_row_bytes(*find_ggml_type("f32"), 3) == std::optional<Bytes>(12));
}
