// An Intel GPU's extra unpacking of 4-bit float (MXFP4) weights in decode
// (SpeedModel::intel_fp4_unpack), checked by hand: only MXFP4 weights, only on Intel.
#include "canitrun/speed.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

SpeedWork weights_work(QuantFamily family) {
    SpeedWork w;
    w.family = family;
    w.float_weights = family == QuantFamily::floating;
    DeviceWork d;
    d.read_bytes = 1e9;
    d.weight_count = 2e9;
    d.layers = 24;
    w.gpus.push_back(d);
    return w;
}

}  // namespace

// 2e9 MXFP4 weights at 1.5 bytes of read time each on an Arc Pro B70 (608 GB/s,
// data/gpus/intel.json): 3e9 / 608e9 s. Every other term is 0 in the zeroed model.
TEST_CASE("an Intel GPU's MXFP4 decode pays its stated unpacking per weight") {
    SpeedModel m = test::zeroed_speed_model();
    m.intel_fp4_unpack = 1.5;
    const Hardware b70 = test::hardware_of({"arc-pro-b70"});
    CHECK(decode_seconds(weights_work(QuantFamily::fp4), b70, m) == Approx(3e9 / 608e9));
    // Not a K-quant's, a legacy type's or a float's: their nibbles and bytes feed the dot
    // product as loaded.
    CHECK(decode_seconds(weights_work(QuantFamily::k_quant), b70, m) == 0);
    CHECK(decode_seconds(weights_work(QuantFamily::legacy), b70, m) == 0);
    CHECK(decode_seconds(weights_work(QuantFamily::floating), b70, m) == 0);
    // Not on another vendor's GPU: an RTX 4090 pays nothing for the same weights.
    CHECK(decode_seconds(weights_work(QuantFamily::fp4), test::hardware_of({"rtx-4090"}), m) == 0);
}

// More of the cost never reads as faster.
TEST_CASE("an Intel GPU's MXFP4 decode slows as its unpacking cost grows") {
    SpeedModel m = test::zeroed_speed_model();
    const Hardware b70 = test::hardware_of({"arc-pro-b70"});
    const double none = decode_seconds(weights_work(QuantFamily::fp4), b70, m);
    m.intel_fp4_unpack = 0.5;
    CHECK(decode_seconds(weights_work(QuantFamily::fp4), b70, m) > none);
}
