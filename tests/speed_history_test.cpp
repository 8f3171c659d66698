// Paths older llama.cpp builds took on CUDA and ROCm, which published runs measure: a quantized
// prompt's products as FP16 cuBLAS GEMMs before b3216 (llama.cpp#8075), a CPU-side CUDA graph
// check per node from #19165 to #21472, and ROCm kernels launched without HIP graphs before
// #22254, checked by hand with stated coefficients.
#include "canitrun/measurements.hpp"
#include "canitrun/speed.hpp"
#include "canitrun/speed_check.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// p = 1 for quantized weights and 0.6 for floats on every class, r = 1.5, every other
// coefficient 0.
SpeedModel prompt_model() {
    SpeedModel m;
    for (auto& c : m.classes) {
        c = SpeedClassCoefficients{};
        c.bandwidth = c.attention = 0;
        c.compute = 1.0;
        c.compute_float = 0.6;
    }
    m.moe_layer_s = m.gpu_hop_s = 0;
    m.weight_reread = 1.5;
    return m;
}

}  // namespace

// 1.6e10 weight FLOPs a token and 5e9 bytes of Q4-ish weights (1.6 weights a byte: 8e9 weights,
// an FP16 copy of 1.6e10 bytes) on an RTX 4090 (330.4 TFLOPS at FP16 accumulate, 1008 GB/s),
// p = 1, p for floats 0.6, e = 0.5 for k-quants, r = 1.5, 512 tokens a micro-batch. On MMQ:
// 1.6e10 / 330.4e12 x (1 + 0.5) + 5e9 / 1008e9 / 512 x 1.5 = 87.17 us a token. As an FP16 GEMM
// after the conversion: 1.6e10 / 330.4e12 x 0.6 + (5e9 + 2 x 1.6e10) / 1008e9 / 512 x 1.5 =
// 136.59 us. An A100 SXM (312 TFLOPS, 2039 GB/s) the same way: 83.93 us.
TEST_CASE("before b3216 a quantized prompt on CUDA tensor cores is an FP16 GEMM after conversion") {
    SpeedModel m = prompt_model();
    m.dequant_prefill[static_cast<int>(QuantFamily::k_quant)] = 0.5;
    SpeedWork w;
    w.family = QuantFamily::k_quant;
    w.weights_per_byte = 1.6;
    DeviceWork d;
    d.resident_bytes = 5e9;
    d.dense_flops = 1.6e10;
    d.layers = 1;  // busy: a layer here (q = 0)
    w.gpus.push_back(d);
    const Hardware geforce = test::hardware_of({"rtx-4090"});
    REQUIRE(prefill_seconds(w, geforce, m, 512));
    CHECK(*prefill_seconds(w, geforce, m, 512) == Approx(87.17e-6).epsilon(1e-3));
    w.cublas_quantized = true;
    CHECK(fp16_gemm_prompt(w, geforce.gpus[0]));
    CHECK(*prefill_seconds(w, geforce, m, 512) == Approx(136.59e-6).epsilon(1e-3));
    const Hardware a100 = test::hardware_of({"a100-80gb-sxm"});
    CHECK(*prefill_seconds(w, a100, m, 512) == Approx(83.93e-6).epsilon(1e-3));
    // Not on a GPU without FP16 tensor cores (MMQ on dp4a), nor today's V100 (its own p), nor
    // for float weights (an FP16 GEMM in every build), nor on Metal.
    CHECK_FALSE(fp16_gemm_prompt(w, test::hardware_of({"tesla-p40"}).gpus[0]));
    CHECK_FALSE(fp16_gemm_prompt(w, test::hardware_of({"v100-32gb"}).gpus[0]));
    CHECK_FALSE(fp16_gemm_prompt(w, test::hardware_of({"m2-ultra-192gb"}).gpus[0]));
    w.float_weights = true;
    w.family = QuantFamily::floating;
    CHECK_FALSE(fp16_gemm_prompt(w, geforce.gpus[0]));
}

// A published run's build decides: XiongjieDai's May 2024 runs (b2824) took the cuBLAS path,
// b3216 (a818f3028, llama.cpp#8075) and later MMQ; a ROCm run is not CUDA's rule; a run naming
// no build goes by its month (June 2024 and later: MMQ).
TEST_CASE("a published run's build and backend pick the cuBLAS path before b3216") {
    Measurement m;
    m.model_id = "llama-3.1-8b";
    m.gpu_id = "rtx-4090";
    m.quant = "Q4_K_M";
    m.backend = "CUDA";
    m.test = "pp512";
    m.ngl = 99;
    m.build = "4426e298 (2824)";
    m.date = "2024-05";
    const auto run = [&] { return bench_run_for(test::database(), m); };
    REQUIRE(run());
    CHECK(run()->cublas_quantized);
    m.build = "a818f302 (3216)";
    m.date = "2024-06";
    CHECK_FALSE(run()->cublas_quantized);
    m.build.clear();
    m.date = "2024-05";
    CHECK(run()->cublas_quantized);
    m.date = "2024-06";
    CHECK_FALSE(run()->cublas_quantized);
    m.build = "4426e298 (2824)";
    m.date = "2024-05";
    m.backend = "ROCm";
    CHECK_FALSE(run()->cublas_quantized);
}

// CUDA builds from llama.cpp#19165 (2026-01-29) to #21472 (2026-04-08) checked each token's CUDA
// graph node by node through a std::unordered_set: jiegec/kb's b8396 (054d8b0f2) runs paid it,
// its b8820 ones did not; pendakwahteknologi's unnumbered build ran on 2026-04-02, before the
// fix; a build of January 2026 (b7700) and a ROCm run did not pay it.
TEST_CASE("a published CUDA run between #19165 and #21472 pays the graph check") {
    Measurement m;
    m.model_id = "qwen3.5-9b";
    m.gpu_id = "rtx-4090";
    m.quant = "Q8_0";
    m.backend = "CUDA";
    m.test = "tg64";
    m.ngl = 99;
    m.build = "054d8b0f2 (8396)";
    m.date = "2026-03";
    const auto run = [&] { return bench_run_for(test::database(), m); };
    REQUIRE(run());
    CHECK(run()->graph_node_check);
    m.build = "9db77a020 (8820)";
    m.date = "2026-04";
    CHECK_FALSE(run()->graph_node_check);
    m.build = "707cbafca (7700)";
    m.date = "2026-01";
    CHECK_FALSE(run()->graph_node_check);
    m.build = "5803c8d";
    m.date = "2026-04-02";
    CHECK(run()->graph_node_check);
    m.date = "2026-04";  // a month alone: taken as built after
    CHECK_FALSE(run()->graph_node_check);
    m.build = "054d8b0f2 (8396)";
    m.date = "2026-03";
    m.backend = "ROCm";
    CHECK_FALSE(run()->graph_node_check);
}

// The check's cost is a stated time per layer on top of the class's own: 32 layers at k = 30 us
// and kg = 40 us read 2.24 ms a token with it, 0.96 ms without (no bytes read, every other
// coefficient 0).
TEST_CASE("the graph check adds its cost per layer to a decoded token") {
    SpeedModel m = test::zeroed_speed_model();
    for (auto& c : m.classes) c.layer_s = 30e-6;
    m.graph_check_layer_s = 40e-6;
    SpeedWork w;
    DeviceWork d;
    d.layers = 32;
    w.gpus.push_back(d);
    const Hardware geforce = test::hardware_of({"rtx-4090"});
    CHECK(decode_seconds(w, geforce, m) == Approx(0.96e-3));
    w.graph_node_check = true;
    CHECK(decode_seconds(w, geforce, m) == Approx(2.24e-3));
}

// A MoE layer's graph holds more nodes for the check to walk: Pessimist228's nsys profiles count
// 1543.43 kernels a token for Qwen3.5-35B-A3B (40 MoE layers) and 857.95 for Qwen3.5-9B (32 dense
// layers), 38.586 and 26.811 a layer, so a MoE layer pays kg 1.43918 times. 40 MoE layers at
// kg = 40 us: 40 x 1.43918 x 40 us = 2.3027 ms with the check, 0 without (every other
// coefficient 0, m among them); 24 dense layers at k = 30 us and 16 MoE ones: 40 x 30 us +
// (24 + 16 x 1.43918) x 40 us = 1.2 + 1.8811 = 3.0811 ms.
TEST_CASE("the graph check costs a MoE layer its larger graph's nodes") {
    SpeedModel m = test::zeroed_speed_model();
    m.graph_check_layer_s = 40e-6;
    SpeedWork w;
    w.graph_node_check = true;
    DeviceWork d;
    d.layers = 40;
    d.moe_layers = 40;
    w.gpus.push_back(d);
    const Hardware geforce = test::hardware_of({"rtx-5090"});
    CHECK(decode_seconds(w, geforce, m) == Approx(2.3027e-3).epsilon(1e-4));
    w.graph_node_check = false;
    CHECK(decode_seconds(w, geforce, m) == Approx(0.0).margin(1e-12));
    for (auto& c : m.classes) c.layer_s = 30e-6;
    w.graph_node_check = true;
    w.gpus.front().moe_layers = 16;
    CHECK(decode_seconds(w, geforce, m) == Approx(3.0811e-3).epsilon(1e-4));
}

// llama.cpp#22254 (April 2026) turned HIP graphs on by default: kyuz0's R9700 runs of b7423
// (December 2025) launched each kernel from the host, llama.cpp#23043's R9700 runs of May 2026
// and a run naming neither build nor day did not; a CUDA run never does.
TEST_CASE("a published ROCm run before #22254 launches its kernels without HIP graphs") {
    Measurement m;
    m.model_id = "qwen3.5-9b";
    m.gpu_id = "radeon-ai-pro-r9700";
    m.quant = "Q8_0";
    m.backend = "ROCm";
    m.test = "tg128";
    m.ngl = 99;
    m.build = "2aa45ef9e (7423)";
    m.date = "2025-12";
    const auto run = [&] { return bench_run_for(test::database(), m); };
    REQUIRE(run());
    CHECK(run()->hip_no_graphs);
    m.build = "0253fb21f (9187)";
    m.date = "2026-05";
    CHECK_FALSE(run()->hip_no_graphs);
    m.build = "4c1c3ac09";  // no number: by its day
    CHECK_FALSE(run()->hip_no_graphs);
    m.date = "2026-03";
    CHECK(run()->hip_no_graphs);
    m.build.clear();
    m.date.clear();
    CHECK_FALSE(run()->hip_no_graphs);
    m.build = "2aa45ef9e (7423)";
    m.date = "2025-12";
    m.backend = "CUDA";
    m.gpu_id = "rtx-4090";
    CHECK_FALSE(run()->hip_no_graphs);
}

// The launches cost kh a layer, dense or MoE, on top of the class's own: 48 layers at k = 30 us
// and kh = 20 us read 48 x 30 = 1.44 ms a token with graphs and 1.44 + 48 x 20 = 2.40 ms without
// (no bytes read, every other coefficient 0); a CUDA run's flag is never set (above).
TEST_CASE("a ROCm decode without HIP graphs adds its launches per layer") {
    SpeedModel m = test::zeroed_speed_model();
    for (auto& c : m.classes) c.layer_s = 30e-6;
    m.hip_launch_layer_s = 20e-6;
    SpeedWork w;
    DeviceWork d;
    d.layers = 48;
    d.moe_layers = 48;
    w.gpus.push_back(d);
    const Hardware radeon = test::hardware_of({"radeon-ai-pro-r9700"});
    CHECK(decode_seconds(w, radeon, m) == Approx(1.44e-3));
    w.hip_no_graphs = true;
    CHECK(decode_seconds(w, radeon, m) == Approx(2.40e-3));
}
