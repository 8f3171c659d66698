// MMQ's re-reads of a dense FFN's quantized weights where a round of its tiles overflows L2
// (mmq_reread_bytes, speed.hpp), checked by hand.
#include "canitrun/speed.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// A dense FFN of `layers` gated layers, `ffn` wide on a `hidden` state, at `weights_per_byte`.
SpeedWork ffn_work(std::uint64_t ffn, std::uint64_t hidden, double layers,
                   double weights_per_byte) {
    SpeedWork w;
    w.weights_per_byte = weights_per_byte;
    w.ffn_rows = ffn;
    w.hidden_size = hidden;
    w.ffn_matrices = 3;
    DeviceWork d;
    d.dense_ffn_layers = layers;
    w.gpus.push_back(d);
    return w;
}

}  // namespace

// qwen2.5-coder-7b's FFN (18944 x 3584, 28 layers) as Q8_0 (1.0625 bytes a weight) on a DGX Spark
// (48 SMs: 6144 rows at once; 24 MiB = 25165824 bytes of L2). Gate and up: 6144 x 3584 x 1.0625
// = 23396352 bytes of rows + 128 x 3584 x 1.125 = 516096 of activations + 6144 x 128 x 4 =
// 3145728 of outputs = 27058176, past L2; down (3584 rows, all held): 72138752 + 2727936 +
// 1835008, past it too. Each product's weights are 18944 x 3584 x 1.0625 = 72138752 bytes, a
// layer's three 216416256, 28 layers' 6059655168; -ub 2048 is 16 token tiles, 15 re-reads:
// 90894827520 bytes. -ub 512: 3 re-reads, 18178965504. -ub 128: one tile, none.
TEST_CASE("a DGX Spark re-reads a 7B Q8_0 FFN for every token tile past the first") {
    const SpeedWork w = ffn_work(18944, 3584, 28, 1 / 1.0625);
    const GpuDevice spark = test::hardware_of({"dgx-spark"}).gpus[0];
    CHECK(mmq_reread_bytes(w.gpus[0], w, spark, 2048) == Approx(90894827520.0).epsilon(1e-9));
    CHECK(mmq_reread_bytes(w.gpus[0], w, spark, 512) == Approx(18178965504.0).epsilon(1e-9));
    CHECK(mmq_reread_bytes(w.gpus[0], w, spark, 128) == 0);
}

// llama-3.1-8b's FFN (14336 x 4096, 32 layers) at 0.625 bytes a weight on an RTX 4090 (128 SMs:
// 16384 rows at once; 72 MiB = 75497472 bytes). Gate and up, 14336 rows all held: 36700160 +
// 589824 + 7340032 = 44630016; down: 36700160 + 2064384 + 2097152 = 40861696: both fit, no
// re-read. llama-3.1-70b's (28672 x 8192, 80 layers): gate and up hold 16384 x 8192 x 0.625 =
// 83886080 bytes of rows alone, down 8192 x 28672 x 0.625 = 146800640: past L2. A layer's
// three products are 3 x 146800640 = 440401920 bytes, 80 layers' 35232153600, x 3 re-reads at
// -ub 512: 105696460800.
TEST_CASE("an RTX 4090 holds an 8B FFN's tiles in L2 and re-reads a 70B one") {
    const GpuDevice rtx4090 = test::hardware_of({"rtx-4090"}).gpus[0];
    const SpeedWork small = ffn_work(14336, 4096, 32, 1.6);
    CHECK(mmq_reread_bytes(small.gpus[0], small, rtx4090, 2048) == 0);
    const SpeedWork large = ffn_work(28672, 8192, 80, 1.6);
    CHECK(mmq_reread_bytes(large.gpus[0], large, rtx4090, 512) ==
          Approx(105696460800.0).epsilon(1e-9));
}

// Float weights go to cuBLAS, a 2024 build's quantized ones too (fp16_gemm_prompt); a GPU
// without L2 and SM figures (the A100 SXM) is not judged; a V100's quantized prompt is cuBLAS's.
TEST_CASE("no MMQ re-read off MMQ or without the GPU's L2") {
    SpeedWork w = ffn_work(18944, 3584, 28, 1 / 1.0625);
    const GpuDevice spark = test::hardware_of({"dgx-spark"}).gpus[0];
    CHECK(mmq_reread_bytes(w.gpus[0], w, test::hardware_of({"a100-80gb-sxm"}).gpus[0], 2048) == 0);
    CHECK(mmq_reread_bytes(w.gpus[0], w, test::hardware_of({"v100-32gb"}).gpus[0], 2048) == 0);
    w.cublas_quantized = true;
    CHECK(mmq_reread_bytes(w.gpus[0], w, spark, 2048) == 0);
    w.cublas_quantized = false;
    w.float_weights = true;
    CHECK(mmq_reread_bytes(w.gpus[0], w, spark, 2048) == 0);
}

// The layers a model's dense FFN runs on: every one of a dense model's, none of a MoE model's
// whose every layer routes (qwen3-30b-a3b: 48 of 48).
TEST_CASE("a dense FFN's layers are counted for the re-read") {
    const Database& db = test::database();
    const Quant& q8 = **db.find_quant("Q8_0");
    const SpeedPoint point{0, 512};
    CHECK(speed_basis(**db.find_model("qwen2.5-coder-7b"), q8, 4096, point).dense_ffn_layers == 28);
    CHECK(speed_basis(**db.find_model("qwen3-30b-a3b"), q8, 4096, point).dense_ffn_layers == 0);
    const SpeedBasis b = speed_basis(**db.find_model("qwen2.5-coder-7b"), q8, 4096, point);
    CHECK(b.shell.ffn_rows == 18944);
    CHECK(b.shell.hidden_size == 3584);
    CHECK(b.shell.ffn_matrices == 3);
}
