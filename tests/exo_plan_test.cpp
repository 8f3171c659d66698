// exo's memory-weighted pipeline over machines, derived by hand from
// allocate_layers_proportionally (exo src/exo/master/placement_utils.py).

#include <algorithm>
#include <iterator>

#include "canitrun/exo_plan.hpp"
#include "canitrun/speed.hpp"
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
    // Three runs on the M3 Ultra that reached 50, 70 and 90 % of its bandwidth.
    const GpuDevice ultra = device_for(*test::database().find_gpu("m3-ultra-256gb").value());
    const std::vector<MlxShare> mlx = {{apple_chip(ultra), 0.9, nullptr},
                                       {apple_chip(ultra), 0.5, nullptr},
                                       {apple_chip(ultra), 0.7, nullptr}};
    const ExoPlan p =
        plan_exo(test::model("llama-3.1-405b"), test::quant("Q4_K_M"), c, o, mlx).value();
    REQUIRE(p.nodes.size() == 2);
    CHECK(p.nodes[0].layers == 63);
    CHECK(p.nodes[1].layers == 63);
    CHECK(p.nodes[1].first_layer == 63);
    // each Mac's GPU may use 75 % of 256 GiB
    CHECK(p.nodes[0].memory == 274877906944ULL * 75 / 100);
    CHECK(p.fits);
    // two hops round the ring, each the 16384-wide hidden state in 16-bit floats over the
    // default 10 Gb/s, plus exo's middle hop cost of 1.4189524 ms (see the hop case below)
    CHECK(p.transfers == 2);
    CHECK(p.bytes_per_transfer == 16384ULL * 2);
    CHECK(p.link_seconds_per_token == Approx(2 * (32768.0 * 8 / 1e10 + 0.0014189524)));
    CHECK(p.link_seconds_fastest == Approx(2 * (32768.0 * 8 / 1e10 + 0.0011029412)));
    CHECK(p.link_seconds_slowest == Approx(2 * (32768.0 * 8 / 1e10 + 0.0017349636)));
    // Each node at the middle share (70 %), the band at 50 and 90 %: the same reads over
    // 0.7 x bandwidth take 0.7 / 0.5 = 1.4 times longer at 50 % and 0.7 / 0.9 as long at 90 %.
    const ExoNode& n = p.nodes[0];
    CHECK(n.mlx_runs == 3);
    CHECK(n.seconds_slowest == Approx(n.seconds_per_token * 0.7 / 0.5));
    CHECK(n.seconds_fastest == Approx(n.seconds_per_token * 0.7 / 0.9));
    const double middle = p.nodes[0].seconds_per_token + p.nodes[1].seconds_per_token;
    CHECK(p.decode_tokens_per_s == Approx(1 / (middle + p.link_seconds_per_token)));
    // the band pairs the fastest nodes with the cheapest hop, the slowest with the dearest
    const double fastest = p.nodes[0].seconds_fastest + p.nodes[1].seconds_fastest;
    const double slowest = p.nodes[0].seconds_slowest + p.nodes[1].seconds_slowest;
    CHECK(p.decode_high == Approx(1 / (fastest + p.link_seconds_fastest)));
    CHECK(p.decode_low == Approx(1 / (slowest + p.link_seconds_slowest)));
    CHECK(p.decode_low < p.decode_tokens_per_s);
    CHECK(p.decode_high > p.decode_tokens_per_s);
    CHECK_FALSE(p.unmeasured_node);
}

// exo's hop cost from its own runs (exo issue #2070, gpt-oss-120b, Thunderbolt 5): pipelined
// over two Macs each reads half the layers at its standalone rate, so what the pipeline adds
// per token is its two hops. An M4 Max and an M5 Max, each about 80 standalone, 68 pipelined:
// 1/68 - 1/80 = 14.7058824 - 12.5 = 2.2058824 ms over 2 hops, 1.1029412 ms. Two M5 Max, 89
// standalone, 68 pipelined: 14.7058824 - 11.2359551 = 3.4699273 ms, 1.7349636 ms a hop. The
// middle of two is their mean, 1.4189524 ms.
TEST_CASE("exo: the hop cost fitted on exo's own standalone and pipelined runs") {
    REQUIRE(std::size(kExoHopRuns) == 2);
    CHECK(exo_hop_seconds(kExoHopRuns[0]) == Approx(0.0011029412));
    CHECK(exo_hop_seconds(kExoHopRuns[1]) == Approx(0.0017349636));
    const ExoHopCost c = exo_hop_cost();
    CHECK(c.runs == 2);
    CHECK(c.low == Approx(0.0011029412));
    CHECK(c.high == Approx(0.0017349636));
    CHECK(c.middle == Approx(0.0014189524));
    // an odd count takes the middle run: 100 -> 50 tokens/s over 2 hops is 10 ms / 2 = 5 ms
    const ExoHopCost three = exo_hop_cost({{100, 50, 2, "", ""}, kExoHopRuns[0], kExoHopRuns[1]});
    CHECK(three.middle == Approx(0.0017349636));
    CHECK(three.high == Approx(0.005));
    CHECK(exo_hop_seconds({80, 68, 0, "", ""}) == 0);  // no hops: nothing to divide
    CHECK(exo_hop_cost({}).runs == 0);
}

// Issue #33: exo runs MLX, so a machine whose chip no published MLX run covers gets no speed
// rather than llama.cpp's: here the M2 Ultra's runs do not time the M3 Ultra.
TEST_CASE("exo: no MLX run on a machine's chip, no speed") {
    Cluster c;
    c.hosts.push_back(parse_host(test::database(), "m3-ultra-256gb", 0).value());
    c.hosts.push_back(parse_host(test::database(), "rtx-4090", 0).value());
    const GpuDevice m2 = device_for(*test::database().find_gpu("m2-ultra-192gb").value());
    const ExoPlan p = plan_exo(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), c, {},
                               {{apple_chip(m2), 0.7, nullptr}})
                          .value();
    CHECK(p.unmeasured_node == std::optional<std::size_t>(0));
    CHECK(p.decode_tokens_per_s == 0);
    CHECK(p.nodes[0].mlx_runs == 0);
    CHECK(p.nodes[0].seconds_per_token == 0);
}

// validation/mlx.json: every row names a database model and GPU, and a run's share is its
// reads times its speed over its chip's bandwidth. mlx-community's Llama 3.1 8B 4bit at
// 119.39 tokens/s on an M3 Ultra (819 GB/s; Rapid-MLX PR #586, a 512-token prompt): a token reads
// every weight but the input embedding, 8,030,261,248 - 128,256 x 4,096 = 7,504,924,672 at
// 4.5 bits = 4.2215e9 bytes, and 512 cells of 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes
// = 67.1e6; 4.2886e9 x 119.39 / 819e9 = 0.625.
TEST_CASE("exo: the published MLX runs and the share of bandwidth each reached") {
    const std::vector<MlxRun>& runs = embedded_mlx_runs();
    REQUIRE(runs.size() >= 10);
    const std::vector<MlxShare> shares = mlx_shares(test::database(), runs).value();
    CHECK(shares.size() == runs.size());
    const auto llama = std::find_if(shares.begin(), shares.end(), [](const MlxShare& s) {
        return s.run->model_id == "llama-3.1-8b" && s.run->gpu_id == "m3-ultra-256gb";
    });
    REQUIRE(llama != shares.end());
    CHECK(llama->share == Approx(0.625).epsilon(0.01));
    for (const MlxShare& s : shares) {
        INFO(s.run->source);
        CHECK(s.share > 0);
        CHECK(s.share < 1);  // no run reads faster than its chip's bandwidth
        CHECK_FALSE(s.run->quote.empty());
    }
    // The M4 Max's one run (unconfirmed: a blog's "roughly 95 tokens/sec", Llama 3 8B at 4 bits
    // on the 64 GB, 546 GB/s chip; no prompt length, so one cell of 32 x 8 x 128 x 2 x 2 = 131,072
    // bytes): (4.2215e9 + 1.3e5) x 95 / 546e9 = 0.7345.
    const auto m4max = std::find_if(shares.begin(), shares.end(), [](const MlxShare& s) {
        return s.run->gpu_id == "m4-max-64gb";
    });
    REQUIRE(m4max != shares.end());
    CHECK(m4max->share == Approx(0.7345).epsilon(0.01));
    // mlx-lm's BENCHMARKS.md: Qwen3 4B 2507 at 4 bits, 134.52 tokens/s after a 2,048-token prompt
    // on the 546 GB/s M4 Max. Its 36 layers (q 2560 x 4096, k and v 2560 x 1024 each, o 4096 x
    // 2560, the MLP 3 x 2560 x 9728, norms 2 x 2560 + 2 x 128: 100,930,816 a layer, 3,633,509,376
    // in all) at 4.5 bits: 2,043,849,024 bytes; 2,048 cells of 36 x 8 x 128 x 2 x 2 = 147,456
    // bytes: 301,989,888. Its head is tied to the input embedding, and mlx-lm runs it as
    // embed_tokens.as_linear: the 151,936 x 2560 matrix read whole, once, a token, at 4.5 bits
    // 218,787,840 bytes (mlx_head_bytes; left out before #33, which read 0.578).
    // 2,564,626,752 x 134.52 / 546e9 = 0.632.
    const auto qwen4b = std::find_if(shares.begin(), shares.end(), [](const MlxShare& s) {
        return s.run->model_id == "qwen3-4b-instruct-2507" && s.run->gpu_id == "m4-max-64gb" &&
               s.run->bits == 4;
    });
    REQUIRE(qwen4b != shares.end());
    CHECK(qwen4b->share == Approx(0.632).epsilon(0.005));
    // MLX's 4-bit: 4 bits and a 16-bit scale and bias per 64 weights
    CHECK(mlx_quant(4).bpw_e4 == 45000);
    CHECK(mlx_quant(8).bpw_e4 == 85000);
}

// Issue #33: the M4 Max now has six runs on record (a blog's, and mlx-lm's BENCHMARKS.md's five:
// Qwen3 4B 2507 at 4, 8 and 16 bits, Qwen3 30B-A3B 2507 at 4 and 8), so an exo plan on it is
// timed; the base M3 and M2 still have none (no published mlx-lm decode on them was found), so
// they get no speed.
TEST_CASE("exo: the chips the published MLX runs cover") {
    const std::vector<MlxShare> shares = mlx_shares(test::database(), embedded_mlx_runs()).value();
    const auto plan_on = [&](const char* gpu) {
        Cluster c;
        c.hosts.push_back(parse_host(test::database(), gpu, 0).value());
        return plan_exo(test::model("llama-3.1-8b"), mlx_quant(4), c, {}, shares).value();
    };
    const ExoPlan m4max = plan_on("m4-max-36gb");  // the 410 GB/s M4 Max: the same chip's share
    CHECK_FALSE(m4max.unmeasured_node);
    CHECK(m4max.nodes[0].mlx_runs == 6);
    CHECK(m4max.decode_tokens_per_s > 0);
    CHECK(plan_on("m3-16gb").unmeasured_node == std::optional<std::size_t>(0));
    CHECK(plan_on("m2-16gb").unmeasured_node == std::optional<std::size_t>(0));
}

TEST_CASE("exo: a node that cannot hold its share makes the plan not fit") {
    Cluster c;
    c.hosts.push_back(parse_host(test::database(), "rtx-4090", 0).value());
    c.hosts.push_back(parse_host(test::database(), "rtx-3090", 0).value());
    EstimateOptions o;
    const ExoPlan p =
        plan_exo(test::model("llama-3.1-405b"), test::quant("Q4_K_M"), c, o, {}).value();
    CHECK_FALSE(p.fits);
    CHECK_FALSE(p.nodes[0].fits());
}
