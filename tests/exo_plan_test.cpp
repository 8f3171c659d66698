// exo's memory-weighted pipeline over machines, derived by hand from
// allocate_layers_proportionally (exo src/exo/master/placement_utils.py).

#include "canitrun/exo_plan.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("exo: layers in proportion to memory, the rest by the largest remainders") {
    using V = std::vector<std::uint64_t>;
    CHECK(exo_layers(126, {256, 256}) == V{63, 63});
    // 80 x 192/288 = 53.33, 80 x 64/288 = 17.78, 80 x 32/288 = 8.89: floors 53 + 17 + 8 = 78,
    // the two spare layers to the largest remainders (.89, then .78)
    CHECK(exo_layers(80, {192, 64, 32}) == V{53, 18, 9});
    // 4 x 1/1001 floors to 0, and .004 loses to .996: 4, 0; then the empty node takes one
    CHECK(exo_layers(4, {1000, 1}) == V{3, 1});
    CHECK(exo_layers(0, {1, 1}) == V{0, 0});
}

TEST_CASE("exo: a 405B at Q4_K_M over two 256 GB Macs") {
    Cluster c;
    for (int i = 0; i < 2; ++i) {
        c.hosts.push_back(parse_host(test::database(), "m3-ultra-256gb", 0).value());
    }
    EstimateOptions o;
    o.context = 8192;
    const ExoPlan p = plan_exo(test::model("llama-3.1-405b"), test::quant("Q4_K_M"), c, o).value();
    REQUIRE(p.nodes.size() == 2);
    CHECK(p.nodes[0].layers == 63);
    CHECK(p.nodes[1].layers == 63);
    CHECK(p.nodes[1].first_layer == 63);
    // each Mac's GPU may use 75 % of 256 GiB
    CHECK(p.nodes[0].memory == 274877906944ULL * 75 / 100);
    CHECK(p.fits);
    // two hops round the ring, each the 16384-wide hidden state in 16-bit floats
    CHECK(p.transfers == 2);
    CHECK(p.bytes_per_transfer == 16384ULL * 2);
    CHECK(p.link_seconds_per_token == Approx(2 * (32768.0 * 8 / 1e10 + 0.003)));
    CHECK(p.decode_tokens_per_s > 0);
}

TEST_CASE("exo: a node that cannot hold its share makes the plan not fit") {
    Cluster c;
    c.hosts.push_back(parse_host(test::database(), "rtx-4090", 0).value());
    c.hosts.push_back(parse_host(test::database(), "rtx-3090", 0).value());
    EstimateOptions o;
    const ExoPlan p = plan_exo(test::model("llama-3.1-405b"), test::quant("Q4_K_M"), c, o).value();
    CHECK_FALSE(p.fits);
    CHECK_FALSE(p.nodes[0].fits());
}
