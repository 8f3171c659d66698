// The decode cost of each cached position on an Xe2 GPU (kv_position_seconds, llama.cpp#26581),
// checked by hand, and the positions speed_work counts for it.
#include <cstdint>

#include "canitrun/speed.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

DeviceWork kv_positions_work(double n) {
    DeviceWork w;
    w.read_bytes = 1e9;
    w.layers = 24;
    w.cache_positions = n;
    return w;
}

}  // namespace

// 1,000,000 positions a token (24 layers at about 41,667 each) at 23 ns: 23 ms on an Arc Pro B70
// (Battlemage); an RTX 4090 and an Alchemist Arc A770 pay nothing for them.
TEST_CASE("decode on an Xe2 GPU pays a stated time for each cached position a layer reads") {
    const SpeedModel m = test::zeroed_speed_model();
    CHECK(m.xe2_kv_position_s == Approx(23e-9));
    SpeedWork w;
    w.gpus.push_back(kv_positions_work(1e6));
    CHECK(decode_seconds(w, test::hardware_of({"arc-pro-b70"}), m) == Approx(23e-3));
    CHECK(decode_seconds(w, test::hardware_of({"rtx-4090"}), m) == 0);
    CHECK(decode_seconds(w, test::hardware_of({"arc-a770-16gb"}), m) == 0);
    // With no position read, nothing: the term cannot stand in for another.
    w.gpus[0] = kv_positions_work(0);
    CHECK(decode_seconds(w, test::hardware_of({"arc-pro-b70"}), m) == 0);
}

// The cost is per position a layer reads, so a deeper cache costs more, never less.
TEST_CASE("an Xe2 GPU's decode slows with depth by the positions' stated time") {
    const SpeedModel m = test::zeroed_speed_model();
    const Hardware h = test::hardware_of({"arc-pro-b70"});
    SpeedWork shallow, deep;
    shallow.gpus.push_back(kv_positions_work(1e5));
    deep.gpus.push_back(kv_positions_work(2e5));
    CHECK(decode_seconds(deep, h, m) - decode_seconds(shallow, h, m) == Approx(1e5 * 23e-9));
}

// gpt-oss-20b (data/models/gpt-oss.json): 12 full-attention layers and 12 sliding ones with a
// 128-token window. tg32 after 16,384 cached tokens attends to 16,384 + 32 / 2 = 16,400 positions
// on average: 12 x 16,400 + 12 x 128 = 198,336 positions a token. At depth 0, tg128's 64 on
// average: 24 x 64 = 1,536.
TEST_CASE("speed_work counts the cached positions each attention layer reads") {
    const Model& m = test::model("gpt-oss-20b");
    const Quant& q = test::quant("MXFP4");
    const Hardware h = test::hardware_of({"arc-pro-b70"});
    auto p = place(test::parts_of("gpt-oss-20b", "MXFP4", 32768), h, {});
    REQUIRE(p);
    const SpeedWork deep = speed_work(m, q, *p, 32768, {16384, 32});
    REQUIRE(deep.gpus.size() == 1);
    CHECK(deep.gpus[0].cache_positions == Approx(198336.0));
    const SpeedWork empty = speed_work(m, q, *p, 32768, {0, 128});
    CHECK(empty.gpus[0].cache_positions == Approx(1536.0));
}
