// Prefill rates by device and weight kind (#34), each checked by hand with stated coefficients
// (not the fitted ones). speed_test.cpp has the model's other terms.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "canitrun/file_report.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/speed.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

// An MI50 (Vega 20, GCN) multiplies Q4_0 and Q4_1 weights at its dp4a rate, 53.6 TOPS
// (data/gpus/amd.json), every other type at half of it, 26.8 (llama.cpp#11931: "Q4_0 or Q4_1
// ... almost twice much compute available" on Vega 20); a P40's MMQ (Pascal) is not GCN. At
// p = 1, 1e10 weight FLOPs then take 1e10 / 53.6e12 = 186.57 us as Q4_0 and 373.13 us as Q4_K.
TEST_CASE("GCN multiplies Q4_0 and Q4_1 at its dp4a rate, other quantized types at half") {
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::no_matrix_units)].compute = 1;
    const Hardware mi50 = test::hardware_of({"mi50-32gb"});
    CHECK(quantized_tflops(mi50.gpus[0], true) == Approx(53.6));
    CHECK(quantized_tflops(mi50.gpus[0], false) == Approx(26.8));
    const Hardware p40 = test::hardware_of({"tesla-p40"});
    CHECK(quantized_tflops(p40.gpus[0], true) == Approx(47));
    SpeedWork w;
    w.family = QuantFamily::legacy;
    w.q4_legacy_weights = true;
    w.gpus.push_back(DeviceWork{0, 0, 1e10, 0, 0, 1});
    CHECK(*prefill_seconds(w, mi50, m, 512) == Approx(186.57e-6).epsilon(1e-4));
    w.family = QuantFamily::k_quant;
    w.q4_legacy_weights = false;
    CHECK(*prefill_seconds(w, mi50, m, 512) == Approx(373.13e-6).epsilon(1e-4));
}

// An MI50 (Vega 20, GCN) has no BF16 arithmetic, and rocBLAS runs its BF16 GEMMs on generic
// kernels that widen BF16 to FP32: its FP32 rate, half its 26.5 TFLOPS of packed FP16 (AMD:
// 13.3 FP32), 13.25. Its F16 weights keep the packed rate; a GPU with BF16 arithmetic (an RTX
// 4090) multiplies BF16 as F16. At p = 1, 1e10 FLOPs take 1e10 / 26.5e12 = 377.36 us as F16
// and 1e10 / 13.25e12 = 754.72 us as BF16.
TEST_CASE("GCN multiplies BF16 weights at its FP32 rate, F16 ones at its packed FP16 rate") {
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::no_matrix_units)].compute_float = 1;
    const Hardware mi50 = test::hardware_of({"mi50-32gb"});
    CHECK(float_tflops(mi50.gpus[0], false) == Approx(26.5));
    CHECK(float_tflops(mi50.gpus[0], true) == Approx(13.25));
    const Hardware geforce = test::hardware_of({"rtx-4090"});
    CHECK(float_tflops(geforce.gpus[0], true) == Approx(float_tflops(geforce.gpus[0], false)));
    SpeedWork w;
    w.family = QuantFamily::floating;
    w.float_weights = true;
    w.gpus.push_back(DeviceWork{0, 0, 1e10, 0, 0, 1});
    CHECK(*prefill_seconds(w, mi50, m, 512) == Approx(377.36e-6).epsilon(1e-4));
    w.bf16_weights = true;
    CHECK(*prefill_seconds(w, mi50, m, 512) == Approx(754.72e-6).epsilon(1e-4));
}

// The Q4_0 / Q4_1 rate follows the type the weights were written as: a GGUF file's quantization
// (id "GGUF file", Quant::file_type from its general.file_type) as the database's Q4_0; a K-quant
// file, and the database's Q4_K_M, not.
TEST_CASE("the Q4_0 / Q4_1 prefill rate goes by the type a file was written as") {
    const Model& model = test::model("llama-3.1-8b");
    const auto legacy = [&](const Quant& q) {
        return speed_work(model, q, Placement{}, 8192, {0, 512}).q4_legacy_weights;
    };
    CHECK(legacy(test::quant("Q4_0")));
    CHECK(legacy(test::quant("Q4_1")));
    CHECK_FALSE(legacy(test::quant("Q4_K_M")));
    Quant file = gguf_file_quant();
    file.file_type = "Q4_0";
    CHECK(legacy(file));
    file.file_type = "Q4_K_M";
    CHECK_FALSE(legacy(file));
}

// A routed expert's FLOPs cost the quantized multiplier p plus their own pe (#34: mul_mat_id
// multiplies each expert's share of the micro-batch in narrower tiles than a dense product). An
// RTX 4090's quantized products run at twice its stored 165.2 TFLOPS (GeForce's FP32-accumulate
// figure: matrix_tflops), 330.4. At p = 1, pe = 2: 1e10 dense FLOPs take 1e10 / 330.4e12 =
// 30.266 us, 1e10 expert FLOPs 3 x 30.266 = 90.799 us, whatever the micro-batch.
TEST_CASE("prefill: a routed expert's FLOPs pay their own multiplier on top of p") {
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::nvidia)].compute = 1;
    m.classes[static_cast<int>(SpeedClass::nvidia)].expert_flop = 2;
    const Hardware h = test::hardware_of({"rtx-4090"});
    SpeedWork w;
    w.family = QuantFamily::legacy;
    w.gpus.push_back(DeviceWork{0, 0, 1e10, 0, 0, 1});
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(30.266e-6).epsilon(1e-4));
    w.gpus[0].expert_flops = 1e10;
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(30.266e-6 + 90.799e-6).epsilon(1e-4));
    CHECK(*prefill_seconds(w, h, m, 4096) == Approx(30.266e-6 + 90.799e-6).epsilon(1e-4));
    // Dense weights do not pay it.
    w.gpus[0].expert_flops = 0;
    m.classes[static_cast<int>(SpeedClass::nvidia)].expert_flop = 50;
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(30.266e-6).epsilon(1e-4));
}

// The per-layer embedding table (per_layer_token_embd) is a get_rows lookup on the host, as
// token_embd is, not a matrix product (#34); both models tie token_embd to the output head,
// whose product counts (below). Gemma 4 E4B (data/models/gemma.json: 8e9 parameters,
// per_layer_embeddings among them; vocab 262,144, 42 layers x 256): 2 x (8e9 - 262,144 x 42 x
// 256) = 2 x (8e9 - 2,818,572,288) = 10,362,855,424 FLOPs a token, where counting the table gave
// 2 x 8e9. Gemma 3n E2B (5e9; vocab 262,400, 30 layers x llama.cpp's 256, n_embd_altup):
// 2 x (5e9 - 262,400 x 7,680) = 5,969,536,000.
TEST_CASE("prefill: a per-layer embedding table is a lookup, not a matrix product") {
    const Hardware h = test::hardware_of({"rtx-4090"});
    const auto dense = [&](const std::string& id) {
        auto p = place(test::parts_of(id, "Q4_K_M", 8192), h, {});
        REQUIRE(p);
        const SpeedWork w = speed_work(test::model(id), test::quant("Q4_K_M"), *p, 8192, {0, 1});
        double flops = w.ram.dense_flops;
        for (const DeviceWork& g : w.gpus) flops += g.dense_flops;
        return flops;
    };
    CHECK(dense("gemma-4-e4b") == Approx(10362855424.0));
    CHECK(dense("gemma-3n-e2b") == Approx(5969536000.0));
}

// speed_basis holds what speed_work reads of the model, the quantization and the point, once for
// a search's many placements: the model's FLOPs a token (Gemma 4 E4B's dense term, derived
// above) and, over any placement, the same work to the bit as speed_work itself, per share too.
// Qwen 3.5 35B-A3B (MoE) on three unlike GPUs, 4 layers' experts in RAM, two splits.
TEST_CASE("prefill: a speed basis gives speed_work's own work for every placement") {
    CHECK(
        speed_basis(test::model("gemma-4-e4b"), test::quant("Q4_K_M"), 8192, {0, 1}).dense_flops ==
        Approx(10362855424.0));
    const Hardware h = test::hardware_of({"rtx-4060-ti-16gb", "rtx-3090", "rtx-3090"}, 64);
    const Model& m = test::model("qwen3.5-35b-a3b");
    const Quant& q = test::quant("Q4_K_M");
    const ModelParts parts = test::parts_of("qwen3.5-35b-a3b", "Q4_K_M", 8192);
    for (const SpeedPoint point : {SpeedPoint{0, 128}, SpeedPoint{4096, 512}}) {
        const SpeedBasis basis = speed_basis(m, q, 8192, point);
        for (const std::vector<std::uint64_t>& split :
             {std::vector<std::uint64_t>{5, 20, 16}, std::vector<std::uint64_t>{0, 0, 41}}) {
            PlacementOptions o;
            o.cpu_moe_layers = 4;
            o.tensor_split = split;
            const auto p = place(parts, h, o);
            REQUIRE(p);
            const SpeedWork direct = speed_work(m, q, *p, 8192, point);
            const SpeedWork from_basis = speed_work(basis, *p);
            REQUIRE(from_basis.gpus.size() == 3);
            const auto same = [](const DeviceWork& a, const DeviceWork& b) {
                return a.read_bytes == b.read_bytes && a.resident_bytes == b.resident_bytes &&
                       a.dense_flops == b.dense_flops && a.attention_flops == b.attention_flops &&
                       a.expert_flops == b.expert_flops && a.layers == b.layers &&
                       a.moe_layers == b.moe_layers && a.recurrent_layers == b.recurrent_layers &&
                       a.weight_count == b.weight_count && a.expert_weights == b.expert_weights &&
                       a.expert_bytes == b.expert_bytes && a.cache_bytes == b.cache_bytes &&
                       a.cache_positions == b.cache_positions &&
                       a.masked_attention_flops == b.masked_attention_flops &&
                       a.wide_head_attention_flops == b.wide_head_attention_flops;
            };
            for (std::size_t d = 0; d < 3; ++d) {
                CHECK(same(from_basis.gpus[d], direct.gpus[d]));
                CHECK(same(share_work(basis, *p, p->gpus[d]), direct.gpus[d]));
            }
            CHECK(same(from_basis.ram, direct.ram));
            CHECK(from_basis.ram.expert_flops > 0);  // the RAM's experts are counted
            CHECK(from_basis.expert_share == direct.expert_share);
            CHECK(from_basis.experts == direct.experts);
            CHECK(from_basis.hand_over_bytes == direct.hand_over_bytes);
        }
    }
}

// Attention's KQ accumulates in FP32 and its KQV in FP16 (attention_tflops, #34). A GeForce RTX
// 4090 stores its FP32-accumulate tensor rate, 165.2 TFLOPS (data/gpus/nvidia.json), half its
// FP16-accumulate 330.4: half the FLOPs at 165.2 and half at 330.4 take 1 / (0.5 / 165.2 +
// 0.5 / 330.4) = 220.27 TFLOPS. An RTX 6000 Ada (the same AD102 die, a workstation card) runs
// both at its 364.25, at the clock its 300 W sustain (sustained_clock_share: 300 / (1.2 x 364.25)
// of it, 250 TFLOPS). At t = 1, 1e9 attention FLOPs take 1e9 / 220.27e12 = 4.540 us on the 4090
// and 1e9 / 250e12 = 4.0 us on the 6000 Ada.
TEST_CASE("attention on a GeForce card runs KQ at its FP32-accumulate rate") {
    const Hardware geforce = test::hardware_of({"rtx-4090"});
    const Hardware ada = test::hardware_of({"rtx-6000-ada"});
    CHECK(matrix_tflops(geforce.gpus[0]) == Approx(330.4));
    CHECK(attention_tflops(geforce.gpus[0]) == Approx(220.27).epsilon(1e-4));
    CHECK(attention_tflops(ada.gpus[0]) == Approx(364.25));
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::nvidia)].attention = 1;
    m.classes[static_cast<int>(SpeedClass::nvidia_workstation)].attention = 1;
    SpeedWork w;
    w.gpus.push_back(DeviceWork{0, 0, 0, 1e9, 0, 1});
    CHECK(*prefill_seconds(w, geforce, m, 512) == Approx(4.540e-6).epsilon(1e-3));
    CHECK(*prefill_seconds(w, ada, m, 512) == Approx(4.0e-6).epsilon(1e-3));
}

// A card whose matrix rate outgrows its board power holds a lower clock through a prompt
// (sustained_clock_share, #34): at 1.2 W a TFLOPS, the RTX 6000 Ada's 364.25 TFLOPS need
// 437.1 W of its 300 (data/gpus/nvidia.json), so it sustains 300 / 1.2 = 250 TFLOPS and, at
// p = 1, 1e10 FLOPs take 1e10 / 250e12 = 40.0 us; at full rate 27.45 us. The RTX 4090's
// 330.4 need 396.5 W of its 450: full rate, 30.266 us. An H100 PCIe's 756.5 TFLOPS need 907.8 W
// of its 350 (NVIDIA's product brief): 291.67 TFLOPS, 34.286 us. A GPU without a board power in
// the data (a B200) runs at its full rate.
TEST_CASE("prefill: a card short of the power its matrix rate needs runs at a lower clock") {
    SpeedModel m = test::zeroed_speed_model();
    for (SpeedClass c :
         {SpeedClass::nvidia, SpeedClass::nvidia_workstation, SpeedClass::nvidia_datacenter})
        m.classes[static_cast<int>(c)].compute = 1;
    SpeedWork w;
    w.family = QuantFamily::legacy;
    w.gpus.push_back(DeviceWork{0, 0, 1e10, 0, 0, 1});
    const Hardware ada = test::hardware_of({"rtx-6000-ada"});
    CHECK(sustained_clock_share(ada.gpus[0]) == Approx(300 / (364.25 * 1.2)));
    CHECK(*prefill_seconds(w, ada, m, 512) == Approx(40.0e-6).epsilon(1e-4));
    const Hardware geforce = test::hardware_of({"rtx-4090"});
    CHECK(sustained_clock_share(geforce.gpus[0]) == 1);
    CHECK(*prefill_seconds(w, geforce, m, 512) == Approx(30.266e-6).epsilon(1e-4));
    const Hardware h100 = test::hardware_of({"h100-pcie"});
    CHECK(sustained_clock_share(h100.gpus[0]) == Approx(350 / (756.5 * 1.2)));
    CHECK(*prefill_seconds(w, h100, m, 512) == Approx(34.286e-6).epsilon(1e-4));
    CHECK(sustained_clock_share(test::hardware_of({"b200"}).gpus[0]) == 1);
    // Attention runs at the same clock: 1e10 attention FLOPs at t = 1 take 40.0 us too.
    w.gpus[0].dense_flops = 0;
    w.gpus[0].attention_flops = 1e10;
    m.classes[static_cast<int>(SpeedClass::nvidia_workstation)].attention = 1;
    CHECK(*prefill_seconds(w, ada, m, 512) == Approx(40.0e-6).epsilon(1e-4));
}

// A tied input embedding is also the output head (#34): its product runs every token, so Gemma 3
// 4B's stated 4.3e9 parameters (data/models/gemma.json, tied_embeddings) count whole, 2 x 4.3e9
// = 8.6e9 FLOPs a token; an untied head's input table is a lookup: Llama 3.1 8B's stated 8.03e9
// less 128,256 x 4,096 = 525,336,576, 2 x 7,504,663,424 = 15,009,326,848.
TEST_CASE("prefill: a tied embedding's output product counts, an untied input table does not") {
    const auto dense = [](const std::string& id) {
        return speed_basis(test::model(id), test::quant("Q4_K_M"), 8192, {0, 1}).dense_flops;
    };
    CHECK(dense("gemma-3-4b") == Approx(8.6e9));
    CHECK(dense("llama-3.1-8b") == Approx(15009326848.0));
}

// A sliding-window layer's cache holds its window and a micro-batch (llama_sliding_cells), and
// CUDA's flash attention runs every cell (#34). Gemma 3 4B (29 sliding layers of 1024, 8 heads of
// 256 for K and V: 2 x 8 x 512 = 8,192 FLOPs a cell a layer) 8192 deep with 2048 prompt tokens
// (9216 positions on average) at -ub 2048 holds 1024 + 2048 cells a sliding layer: 2048 masked,
// 29 x 2048 x 8,192 = 486,539,264 FLOPs a token; 1024 deep at -ub 512, 1024 + 1024 positions
// on average: 512 masked of 1536 cells, 121,634,816. At t = 1, 1e9 unmasked and 1e9 masked
// attention FLOPs take 2e9 / 220.27e12 = 9.080 us on an RTX 4090 (attention_tflops); Metal
// skips the masked blocks: 1e9 / 27.2e12 = 36.76 us on an M2 Ultra (its FP32 rate).
TEST_CASE("prefill: a sliding layer's masked cells cost attention on CUDA, not on Metal") {
    const Model& gemma = test::model("gemma-3-4b");
    const Quant& q = test::quant("Q4_0");
    CHECK(speed_basis(gemma, q, 16384, {8192, 2048, 2048}).masked_attention_flops ==
          Approx(486539264.0));
    CHECK(speed_basis(gemma, q, 16384, {1024, 2048, 512}).masked_attention_flops ==
          Approx(121634816.0));
    CHECK(speed_basis(gemma, q, 16384, {0, 512, 512}).masked_attention_flops == 0);
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::nvidia)].attention = 1;
    m.classes[static_cast<int>(SpeedClass::apple)].attention = 1;
    SpeedWork w;
    w.gpus.push_back(DeviceWork{0, 0, 0, 1e9, 0, 1});
    w.gpus[0].masked_attention_flops = 1e9;
    const Hardware geforce = test::hardware_of({"rtx-4090"});
    const Hardware mac = test::hardware_of({"m2-ultra-192gb"});
    CHECK_FALSE(attention_skips_masked_cells(geforce.gpus[0]));
    CHECK(attention_skips_masked_cells(mac.gpus[0]));
    CHECK(*prefill_seconds(w, geforce, m, 2048) == Approx(9.080e-6).epsilon(1e-3));
    CHECK(*prefill_seconds(w, mac, m, 2048) == Approx(36.76e-6).epsilon(1e-3));
}

// An Intel GPU's flash attention runs heads wider than 256 at a tenth of its rate (llama.cpp#27638;
// kIntelWideHeadAttentionSlowdown). Gemma 4 31B's 10 global layers of 32 heads x 512 (K and V)
// 16384 deep with 2048 prompt tokens (17408 positions on average): 2 x 32 x 1024 x 17408 x 10 =
// 11,408,506,880 FLOPs a token; its 50 sliding layers' 256-wide heads are not wide, nor any of
// Llama 3.1 8B's (128). At t = 1, 1e9 attention FLOPs all wide take (1e9 + 9e9) / 183.5e12 =
// 54.50 us on an Arc Pro B70 (its XMX rate), 1e9 / 220.27e12 = 4.540 us on an RTX 4090.
TEST_CASE("prefill: an Intel GPU runs attention heads wider than 256 at a tenth of its rate") {
    const Quant& q = test::quant("Q4_K_M");
    CHECK(speed_basis(test::model("gemma-4-31b"), q, 32768, {16384, 2048, 512})
              .wide_head_attention_flops == Approx(11408506880.0));
    CHECK(speed_basis(test::model("llama-3.1-8b"), q, 32768, {16384, 2048, 512})
              .wide_head_attention_flops == 0);
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::nvidia)].attention = 1;
    m.classes[static_cast<int>(SpeedClass::intel)].attention = 1;
    SpeedWork w;
    w.gpus.push_back(DeviceWork{0, 0, 0, 1e9, 0, 1});
    w.gpus[0].wide_head_attention_flops = 1e9;
    const Hardware arc = test::hardware_of({"arc-pro-b70"});
    const Hardware geforce = test::hardware_of({"rtx-4090"});
    CHECK(wide_head_attention_slowdown(arc.gpus[0]) == 10);
    CHECK(wide_head_attention_slowdown(geforce.gpus[0]) == 1);
    CHECK(*prefill_seconds(w, arc, m, 512) == Approx(54.50e-6).epsilon(1e-3));
    CHECK(*prefill_seconds(w, geforce, m, 512) == Approx(4.540e-6).epsilon(1e-3));
}
