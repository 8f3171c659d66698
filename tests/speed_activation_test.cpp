// A prompt's activation tensors that overflow L2 (activation_bytes, speed_activation.hpp), checked
// by hand.
#include "canitrun/speed_activation.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

SpeedWork gemma_3_4b_work(std::uint64_t ubatch) {
    const Database& db = test::database();
    const SpeedBasis b = speed_basis(**db.find_model("gemma-3-4b"), **db.find_quant("Q4_0"), 4096,
                                     SpeedPoint{0, ubatch, ubatch});
    SpeedWork w = b.shell;
    DeviceWork d;
    d.layers = 34;
    w.gpus.push_back(d);
    return w;
}

}  // namespace

// gemma-3-4b (data/models/gemma.json): hidden 2560, 8 query heads and 4 KV heads of 256, a gated
// FFN 10240 wide, 34 layers, all attention (29 sliding, 5 full), no experts. A layer's tensors:
// six of 2560, three of 2048 (q, roped q, the attention's output), three of 1024 (k, roped k, v),
// three of 10240 (gate, up, their product).
TEST_CASE("a layer's activation tensors by width") {
    const SpeedWork w = gemma_3_4b_work(512);
    CHECK(w.activations[0].width == 2560);
    CHECK(w.activations[0].per_layer == 6);
    CHECK(w.activations[1].width == 2048);
    CHECK(w.activations[1].per_layer == 3);
    CHECK(w.activations[2].width == 1024);
    CHECK(w.activations[2].per_layer == 3);
    CHECK(w.activations[3].width == 10240);
    CHECK(w.activations[3].per_layer == 3);
    CHECK(w.activations[4].per_layer == 0);
    CHECK(w.activations[5].per_layer == 0);
}

// A DGX Spark's L2 is 24 MiB = 25165824 bytes. A tensor stays there where it and its op's input
// (as large) fit: 2 x ubatch x width x 4 bytes. At -ub 2048 that is 16384 x width: 2560 (41.9
// MB), 2048 (33.6 MB) and 10240 overflow, 1024 (16.8 MB) fits: (6 x 2560 + 3 x 2048 + 3 x
// 10240) x 8 bytes (written and read, F32) = 417792 a layer, 14204928 a token over 34 layers.
// At -ub 512 (4096 x width) only 10240 (41.9 MB) overflows: 3 x 10240 x 8 x 34 = 8355840.
TEST_CASE("a DGX Spark's prompt moves the activations L2 cannot hold") {
    const GpuDevice spark = test::hardware_of({"dgx-spark"}).gpus[0];
    const SpeedWork big = gemma_3_4b_work(2048);
    CHECK(activation_bytes(big.gpus[0], big, spark, 2048) == Approx(14204928.0).epsilon(1e-12));
    const SpeedWork small = gemma_3_4b_work(512);
    CHECK(activation_bytes(small.gpus[0], small, spark, 512) == Approx(8355840.0).epsilon(1e-12));
}

// An RTX 4090's 72 MiB (75497472 bytes) holds every gemma-3-4b tensor at -ub 512 (10240 wide:
// 41.9 MB with its input); a GPU whose L2 data/gpus does not give (the A100 SXM) is taken to.
TEST_CASE("no activation traffic where L2 holds the tensors or is not known") {
    const SpeedWork w = gemma_3_4b_work(512);
    CHECK(activation_bytes(w.gpus[0], w, test::hardware_of({"rtx-4090"}).gpus[0], 512) == 0);
    CHECK(activation_bytes(w.gpus[0], w, test::hardware_of({"a100-80gb-sxm"}).gpus[0], 2048) == 0);
}
