// Expert products that leave llama.cpp's batched kernels (MMF for float experts, MMQ for
// quantized ones) and run one expert at a time, each checked by hand with stated coefficients.
#include "canitrun/speed.hpp"

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

// llama.cpp's mul_mat_id at 0ad4a86 (mmf.cu, ggml_cuda_should_use_mmf): MMF takes a float
// expert product of up to 1024 rows up to 512 tokens, a wider one up to 128, on a GPU with the
// matrix instructions for its type; the rest run one expert at a time. Qwen3-30B-A3B's experts
// (768-wide gate and up, down to its 2048 hidden) in BF16 at 512 tokens: the down product
// alone; at 1024 tokens all three; at 128 none. A Pascal card has no MMA for F16, a CDNA3 one
// none for BF16 in MMF: all three. Quantized experts (MMQ), Metal and decode: none. On a Ryzen
// AI Max (256 GB/s) with g = 3 and 48 MoE layers: 48 x 128 experts x 768 x 2048 weights x 2
// bytes = 1.93273e10 bytes, / 256e9 / 512 tokens x 3 = 442.37 us a token.
TEST_CASE("float experts past MMF's limits run one expert at a time") {
    SpeedWork w;
    w.float_weights = true;
    w.family = QuantFamily::floating;
    w.bf16_weights = true;
    w.experts = 128;
    w.expert_share = 8.0 / 128;
    w.expert_ffn_rows = 768;
    w.expert_down_rows = 2048;
    w.expert_matrix_weights = 768.0 * 2048;
    w.expert_matrices = 3;
    const auto lone = [&](const char* id, double batch) {
        return lone_expert_products(w, device_for(test::gpu(id)), batch);
    };
    CHECK(lone("ryzen-ai-max-395-128gb", 512) == 1);
    CHECK(lone("ryzen-ai-max-395-128gb", 1024) == 3);
    CHECK(lone("ryzen-ai-max-395-128gb", 128) == 0);
    CHECK(lone("ryzen-ai-max-395-128gb", 1) == 0);
    CHECK(lone("rtx-4090", 512) == 1);
    CHECK(lone("mi300x", 512) == 3);
    CHECK(lone("m4-max-128gb", 512) == 0);
    w.bf16_weights = false;
    CHECK(lone("tesla-p100-16gb", 512) == 3);
    CHECK(lone("mi300x", 512) == 1);
    w.float_weights = false;
    w.family = QuantFamily::k_quant;
    CHECK(lone("rtx-4090", 512) == 0);
    w.float_weights = true;
    w.family = QuantFamily::floating;
    w.bf16_weights = true;
    SpeedModel m = test::zeroed_speed_model();
    m.lone_expert_read = 3;
    DeviceWork d;
    d.layers = d.moe_layers = 48;
    w.gpus.push_back(d);
    const Hardware h = test::hardware_of({"ryzen-ai-max-395-128gb"});
    REQUIRE(prefill_seconds(w, h, m, 512));
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(442.37e-6).epsilon(1e-4));
}

// Qwen3.6-35B-A3B's routed experts as a quantized prompt's work sees them: 256 experts of
// 512 x 2,048 (three products each), 8 a token.
namespace {

SpeedWork qwen36_expert_work() {
    SpeedWork w;
    w.family = QuantFamily::k_quant;
    w.experts = 256;
    w.expert_share = 8.0 / 256;
    w.expert_ffn_rows = 512;
    w.expert_down_rows = 2048;
    w.expert_matrix_weights = 512.0 * 2048;
    w.expert_matrices = 3;
    return w;
}

}  // namespace

// Quantized experts: ggml_cuda_should_use_mmq (ggml-cuda/mmq.cu at ggml-org/ggml 43419ff0) keeps
// an NVIDIA GPU without Turing's int8 MMA on MMQ only with dp4a and, where it has FP16 tensor
// cores (Volta), below MMQ_DP4A_MAX_BATCH_SIZE, 64 tokens; a P100 (GP100: no dp4a) never. Every
// other product of a mul_mat_id runs one expert at a time. Qwen3.6-35B-A3B's 40 MoE layers of
// 256 experts (three products each) at 512 tokens, every expert touched (1 - (1 - 8/256)^512 =
// 1 - 8.9e-8), at gc = 10 us a call: 40 x 256 x 3 x 10 us / 512 tokens = 600 us a token.
TEST_CASE("quantized experts leave MMQ on a V100 from 64 tokens and on a P100 always") {
    SpeedWork w = qwen36_expert_work();
    const auto lone = [&](const char* id, double batch) {
        return lone_expert_products(w, device_for(test::gpu(id)), batch);
    };
    CHECK(lone("v100-16gb", 512) == 3);
    CHECK(lone("v100-16gb", 64) == 3);
    CHECK(lone("v100-16gb", 63) == 0);
    CHECK(lone("tesla-p100-16gb", 512) == 3);
    CHECK(lone("tesla-p100-16gb", 32) == 3);
    CHECK(lone("tesla-p40", 512) == 0);    // dp4a, no FP16 tensor cores: MMQ
    CHECK(lone("gtx-1080-ti", 512) == 0);  // the same
    CHECK(lone("rtx-2080-ti", 512) == 0);  // Turing's int8 MMA: MMQ
    CHECK(lone("mi50-32gb", 512) == 0);    // GCN stays on MMQ (HIP)
    CHECK(lone("v100-16gb", 1) == 0);      // decode: the mat-vec kernels
    SpeedModel m = test::zeroed_speed_model();
    m.lone_expert_call_s = 10e-6;
    m.lone_expert_read = 3;  // a float expert's read: not a quantized one's (MMQ reads it)
    DeviceWork d;
    d.layers = d.moe_layers = 40;
    w.gpus.push_back(d);
    const Hardware h = test::hardware_of({"v100-16gb"});
    REQUIRE(prefill_seconds(w, h, m, 512));
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(600e-6).epsilon(1e-4));
}

// The host sort before the calls (ggml_cuda_mul_mat_id at ggml-org/ggml 43419ff0: for every
// expert, every token, every slot of its top-k) costs gs a pass per token, whatever the
// micro-batch: Qwen3.6-35B-A3B's 40 MoE layers x 3 products x 256 experts x 8 slots = 245760
// passes a token, at gs = 1 ns 245.76 us a token at 512 tokens and at 2048 alike. On an RTX 4090
// (MMQ takes the products) none: the token costs only the 1 us of host mask set beside it (1,000
// cells at 1 ns), which a prompt with no other work would not have (no time: no prediction).
TEST_CASE("the host sort of a product run one expert at a time costs per token") {
    SpeedWork w = qwen36_expert_work();
    w.mask_cells = 1000;
    SpeedModel m = test::zeroed_speed_model();
    m.lone_expert_sort_s = 1e-9;
    m.mask_cell_s = 1e-9;
    DeviceWork d;
    d.layers = d.moe_layers = 40;
    w.gpus.push_back(d);
    const Hardware v100 = test::hardware_of({"v100-16gb"});
    REQUIRE(prefill_seconds(w, v100, m, 512));
    CHECK(*prefill_seconds(w, v100, m, 512) == Approx(245.76e-6 + 1e-6).epsilon(1e-4));
    CHECK(*prefill_seconds(w, v100, m, 2048) == Approx(245.76e-6 + 1e-6).epsilon(1e-4));
    const Hardware rtx = test::hardware_of({"rtx-4090"});
    REQUIRE(prefill_seconds(w, rtx, m, 512));
    CHECK(*prefill_seconds(w, rtx, m, 512) == Approx(1e-6).epsilon(1e-4));
}
