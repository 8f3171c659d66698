// The speed model's terms, each checked by hand with stated coefficients (not the fitted ones),
// and the work a token asks of each device.
#include "canitrun/speed.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

SpeedClassCoefficients& nvidia(SpeedModel& m) {
    return m.classes[static_cast<int>(SpeedClass::nvidia)];
}

}  // namespace

// One RTX 4090 (1008 GB/s): 1e9 bytes at 1.25x the ideal time = 1.24 ms, 32 layers x 50 µs =
// 1.6 ms, 8 recurrent layers at 20.16 µs per TB/s: 8 x 20.16e-6 x 1e12 / 1008e9 = 0.16 ms, 4 MoE
// layers x 10 µs = 0.04 ms, 2e9 k-quant weights unpacked at 0.1008 bytes of read time each:
// 2e9 x 0.1008 / 1008e9 = 0.2 ms. 3.240 ms.
TEST_CASE("decode time is bytes over bandwidth, per-layer, recurrent, MoE and unpacking costs") {
    SpeedModel m = test::zeroed_speed_model();
    nvidia(m).bandwidth = 1.25;
    nvidia(m).layer_s = 50e-6;
    nvidia(m).recurrent_layer_s = 20.16e-6;
    m.moe_layer_s = 10e-6;
    m.dequant[static_cast<int>(QuantFamily::k_quant)] = 0.1008;
    const Hardware h = test::hardware_of({"rtx-4090"});
    SpeedWork w;
    w.family = QuantFamily::k_quant;
    w.gpus.push_back(DeviceWork{1e9, 0, 0, 0, 0, 32, 4, 8, 2e9});
    CHECK(decode_seconds(w, h, m) ==
          Approx(1e9 / 1008e9 * 1.25 + 32 * 50e-6 + 8 * 20e-6 + 4 * 10e-6 + 2e9 * 0.1008 / 1008e9));
    CHECK(decode_seconds(w, h, m) == Approx(3.240e-3).epsilon(1e-3));
    // Legacy types carry their own unpacking cost (0 here).
    w.family = QuantFamily::legacy;
    CHECK(decode_seconds(w, h, m) == Approx(3.040e-3).epsilon(1e-3));
}

// A class's own unpacking cost u adds to the shared d[type] for every quantized family and not
// for float weights: 2e9 weights at 0.0504 bytes of read time each on an RTX 4090's 1008 GB/s
// = 2e9 x 0.0504 / 1008e9 = 0.1 ms, on top of 1e9 bytes at 1.25x = 1.24 ms.
TEST_CASE("decode: a class's own unpacking cost, paid by quantized weights only") {
    SpeedModel m = test::zeroed_speed_model();
    nvidia(m).bandwidth = 1.25;
    nvidia(m).quantized_unpack = 0.0504;
    const Hardware h = test::hardware_of({"rtx-4090"});
    SpeedWork w;
    w.gpus.push_back(DeviceWork{1e9, 0, 0, 0, 0, 32, 0, 0, 2e9});
    for (const QuantFamily f :
         {QuantFamily::legacy, QuantFamily::k_quant, QuantFamily::i_quant, QuantFamily::fp4}) {
        w.family = f;
        CHECK(decode_seconds(w, h, m) == Approx(1.240e-3 + 0.1e-3).epsilon(1e-3));
    }
    w.family = QuantFamily::floating;
    CHECK(decode_seconds(w, h, m) == Approx(1.240e-3).epsilon(1e-3));
}

// u x 32 / the stored FP32 FLOPs per byte (data/gpus/apple.json): an M1 Max's 10.4 TFLOPS on 400
// GB/s, 26: 2e9 x 0.05 / 400e9 x 32 / 26 = 0.3077 ms; an M3 Max's 14.13 (35.325), 0.2265 ms.
TEST_CASE("decode: the unpacking cost u scales with a device's FP32 rate per byte") {
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::apple)].quantized_unpack = 0.05;
    SpeedWork w;
    w.family = QuantFamily::k_quant;
    w.gpus.push_back(DeviceWork{1e9, 0, 0, 0, 0, 32, 0, 0, 2e9});
    CHECK(decode_seconds(w, test::hardware_of({"m1-max-64gb"}), m) ==
          Approx(0.3077e-3).epsilon(1e-3));
    CHECK(decode_seconds(w, test::hardware_of({"m3-max-64gb"}), m) ==
          Approx(0.2265e-3).epsilon(1e-3));
}

// apple_chip numbers a chip 1 + (generation - 1) x 4 + tier (base 0, Pro 1, Max 2, Ultra 3): M1 is
// 1, M1 Max 1 + 2 = 3, M3 Pro 1 + 8 + 1 = 10, M5 Max 1 + 16 + 2 = 19; any other device is 0.
TEST_CASE("apple_chip numbers Apple chips by generation and tier") {
    const auto chip = [](const char* id) { return apple_chip(device_for(test::gpu(id))); };
    CHECK(chip("m1-8gb") == 1);
    CHECK(chip("m1-max-64gb") == 3);
    CHECK(chip("m1-max-32gb") == 3);
    CHECK(chip("m3-pro-36gb") == 10);
    CHECK(chip("m5-max-128gb") == 19);
    CHECK(chip("rtx-4090") == 0);
}

// An M1 Max's own a (2.0) against the class's (1.25) on 1e9 bytes at 400 GB/s: 5 ms, not 3.125;
// with no a of its own (0) the chip reads at the class's.
TEST_CASE("an Apple chip reads at its own bandwidth share where the fit has one") {
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::apple)].bandwidth = 1.25;
    const Hardware h = test::hardware_of({"m1-max-64gb"});
    SpeedWork w;
    w.gpus.push_back(DeviceWork{1e9, 0, 0, 0, 0, 0, 0, 0, 0});
    CHECK(decode_seconds(w, h, m) == Approx(3.125e-3));
    m.apple_bandwidth[3 - 1] = 2.0;
    CHECK(decode_seconds(w, h, m) == Approx(5e-3));
}

// Two RTX 3090s (936 GB/s each) in a layer split, half the bytes each: the times add (the
// layers run one after another), plus one hand-over of 0.5 ms; RAM-held experts read 2e8 bytes
// at 60 % of 100 GB/s = 3.33 ms.
TEST_CASE("a layer split adds each GPU's time, the hand-over and the RAM path") {
    SpeedModel m = test::zeroed_speed_model();
    nvidia(m).bandwidth = 1.0;
    m.gpu_hop_s = 0.5e-3;
    m.ram_bandwidth_efficiency = 0.6;
    Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"});
    h.ram_bandwidth_gbps = 100;
    SpeedWork w;
    w.gpus.push_back(DeviceWork{5e8, 0, 0, 0, 0, 16, 0, 0, 0});
    w.gpus.push_back(DeviceWork{5e8, 0, 0, 0, 0, 16, 0, 0, 0});
    CHECK(decode_seconds(w, h, m) == Approx(2 * 5e8 / 936e9 + 0.5e-3));
    w.ram.read_bytes = 2e8;
    CHECK(decode_seconds(w, h, m) == Approx(2 * 5e8 / 936e9 + 0.5e-3 + 2e8 / (100e9 * 0.6)));
}

// The hidden state's copy at the boundary is not fitted: a 4096-wide model hands 4 x 4096 bytes
// over PCIe at the model's 25 GB/s, 0.655 µs a token. With the fitted hand-over at 0, it is what
// keeps the same reads on two GPUs slower than on one (the split search takes the fewest).
TEST_CASE("a layer split's hand-over copies the hidden state over PCIe") {
    SpeedModel m = test::zeroed_speed_model();
    nvidia(m).bandwidth = 1.0;
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"});
    SpeedWork one;
    one.hand_over_bytes = 4.0 * 4096;
    one.gpus.push_back(DeviceWork{1e9, 0, 0, 0, 0, 32, 0, 0, 0});
    one.gpus.push_back(DeviceWork{});
    SpeedWork two = one;
    two.gpus[0] = two.gpus[1] = DeviceWork{5e8, 0, 0, 0, 0, 16, 0, 0, 0};
    CHECK(decode_seconds(one, h, m) == Approx(1e9 / 936e9));
    CHECK(decode_seconds(two, h, m) == Approx(1e9 / 936e9 + 16384 / 25e9));
    CHECK(decode_seconds(two, h, m) > decode_seconds(one, h, m));
}

// --split-mode tensor: the GPUs run at once. Two RTX 3090s (936 GB/s), 32 layers at 10 µs each
// on each GPU, GPU 0 reading 6e8 bytes and GPU 1 4e8 (an uneven -ts): GPU 0 is the slower,
// 6e8 / 936e9 = 641.03 µs plus its share of the layer costs, 32 x 10 µs / 2 = 160 µs; no
// hand-over; 64 reductions at 50 µs = 3.2 ms. 4.00103 ms in all, where the same work as a layer
// split adds both GPUs and a hand-over: 1e9 / 936e9 + 640 µs + 0.5 ms = 2.20838 ms.
TEST_CASE("a tensor split runs its GPUs at once and pays each reduction") {
    SpeedModel m = test::zeroed_speed_model();
    nvidia(m).bandwidth = 1.0;
    nvidia(m).layer_s = 10e-6;
    m.gpu_hop_s = 0.5e-3;
    m.meta_reduce_s = 50e-6;
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"});
    SpeedWork w;
    w.gpus.push_back(DeviceWork{6e8, 0, 0, 0, 0, 32, 0, 0, 0});
    w.gpus.push_back(DeviceWork{4e8, 0, 0, 0, 0, 32, 0, 0, 0});
    CHECK(decode_seconds(w, h, m) == Approx(1e9 / 936e9 + 64 * 10e-6 + 0.5e-3));
    CHECK(decode_seconds(w, h, m) == Approx(2.20838e-3).epsilon(1e-5));
    w.tensor_parallel = true;
    w.reductions = 64;
    CHECK(decode_seconds(w, h, m) == Approx(6e8 / 936e9 + 32 * 10e-6 / 2 + 64 * 50e-6));
    CHECK(decode_seconds(w, h, m) == Approx(4.00103e-3).epsilon(1e-5));
}

// Prefill by the same rule. Two RTX 4090s (330.4 TFLOPS, 1008 GB/s), a 512-token micro-batch,
// p 1.0, r 1.0, 500 µs a layer: GPU 0 holds 3e9 bytes and 1e10 FLOPs a token, GPU 1 2e9 and
// 6e9, each runs 32 layers. As a layer split the two add up: 16e9 / 330.4e12 = 48.426 µs,
// 5e9 / 1008e9 / 512 = 9.688 µs, 64 x 500 µs / 512 = 62.5 µs: 120.614 µs. As a tensor split
// GPU 0 is the slower: 1e10 / 330.4e12 = 30.266 µs, 3e9 / 1008e9 / 512 = 5.813 µs, its half of
// 32 x 500 µs / 512 = 15.625 µs: 51.704 µs; plus 64 reductions at 2 µs a token: 179.704 µs.
TEST_CASE("a tensor split's prompt runs its GPUs at once and pays each reduction a token") {
    SpeedModel m = test::zeroed_speed_model();
    nvidia(m).compute = 1.0;
    nvidia(m).prefill_layer_s = 500e-6;
    m.weight_reread = 1.0;
    m.meta_prefill_reduce_s = 2e-6;
    const Hardware h = test::hardware_of({"rtx-4090", "rtx-4090"});
    SpeedWork w;
    w.gpus.push_back(DeviceWork{0, 3e9, 1e10, 0, 0, 32, 0, 0, 0});
    w.gpus.push_back(DeviceWork{0, 2e9, 6e9, 0, 0, 32, 0, 0, 0});
    REQUIRE(prefill_seconds(w, h, m, 512));
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(120.614e-6).epsilon(1e-5));
    w.tensor_parallel = true;
    w.reductions = 64;
    CHECK(*prefill_seconds(w, h, m, 512) ==
          Approx(1e10 / 330.4e12 + 3e9 / 1008e9 / 512 + 32 * 500e-6 / 512 / 2 + 64 * 2e-6));
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(179.704e-6).epsilon(1e-5));
}

namespace {

// validation/split-modes.json's -sm tensor pairs of one test at depth 0 on a known number of
// GPUs of one backend, each read as (1 / tensor t/s - 1 / (GPUs x layer t/s)) / (2 x layers),
// the layers the database model's: the time each reduction adds to a token.
std::vector<double> reductions_read_from(const std::string& test, const std::string& backend) {
    std::ifstream in(CANITRUN_SOURCE_DIR "/validation/split-modes.json");
    REQUIRE(in);
    std::vector<double> each;
    for (const auto& row : nlohmann::json::parse(in)) {
        INFO(row.dump());
        CHECK(row.at("source").get<std::string>().starts_with("https://github.com/"));
        CHECK_FALSE(row.at("quote").get<std::string>().empty());
        if (row.at("split_mode") != "tensor" || row.at("test") != test ||
            row.at("backend") != backend || row.at("n_gpus").is_null()) {
            continue;
        }
        const std::string id =
            row.at("model_id").is_null() ? row.at("nearest_model_id") : row.at("model_id");
        const auto layers = static_cast<double>(test::model(id).arch.layers);
        const double gpus = row.at("n_gpus").get<double>();
        const double tensor = 1 / row.at("tokens_per_second").get<double>();
        const double layer = 1 / row.at("layer_tokens_per_second").get<double>();
        each.push_back((tensor - layer / gpus) / (2 * layers));
    }
    std::sort(each.begin(), each.end());
    return each;
}

}  // namespace

// The CUDA pairs (layers: gpt-oss-120b 36, llama-3.2-1b 16, glm-4.5-air 46):
//   gpt-oss 120B on 4: (1/179.79 - 1/(4 x 180.36)) / 72 = 58.00 µs
//   llama 1B on 4:     (1/409.87 - 1/(4 x 314.75)) / 32 = 51.42 µs
//   glm4moe 106B on 2: (1/92.58  - 1/(2 x 120.61)) / 92 = 72.35 µs
// and the model's figure is their median. The Vulkan pair (llama.cpp#25051, a build with that
// PR's all-reduce) is held out: Qwen3.5 27B's 64 layers on 2 RX 7900 XTX,
// (1/41.57 - 1/(2 x 34.50)) / 128 = 74.71 µs, inside the CUDA pairs' spread (+29 % of 58).
TEST_CASE("the tensor split's reduction time is the median of the published pairs") {
    const std::vector<double> each = reductions_read_from("tg128", "CUDA");
    REQUIRE(each.size() == 3);
    CHECK(each[0] == Approx(51.42e-6).epsilon(1e-3));
    CHECK(each[1] == Approx(58.00e-6).epsilon(1e-3));
    CHECK(each[2] == Approx(72.35e-6).epsilon(1e-3));
    CHECK(fitted_speed_model().meta_reduce_s == Approx(each[1]).epsilon(1e-3));
    const std::vector<double> vulkan = reductions_read_from("tg128", "Vulkan");
    REQUIRE(vulkan.size() == 1);
    CHECK(vulkan[0] == Approx(74.71e-6).epsilon(1e-3));
}

// Prefill by the same reading of the pp512 rows:
//   llama 1B on 4:     (1/18753.39 - 1/(4 x 44766.52)) / 32 = 1.4918 µs
//   gpt-oss 120B on 4: (1/5446.21  - 1/(4 x 3822.24))  / 72 = 1.6418 µs
//   glm4moe 106B on 2: (1/638.89   - 1/(2 x 1457.82))  / 92 = 13.285 µs
// the median 1.6418 µs; the held-out Vulkan pair: (1/1283.40 - 1/(2 x 809.00)) / 128 = 1.2589 µs.
TEST_CASE("the tensor split's prompt reduction time is the median of the published pairs") {
    const std::vector<double> each = reductions_read_from("pp512", "CUDA");
    REQUIRE(each.size() == 3);
    CHECK(each[0] == Approx(1.4918e-6).epsilon(1e-3));
    CHECK(each[1] == Approx(1.6418e-6).epsilon(1e-3));
    CHECK(each[2] == Approx(13.285e-6).epsilon(1e-3));
    CHECK(fitted_speed_model().meta_prefill_reduce_s == Approx(each[1]).epsilon(1e-3));
    const std::vector<double> vulkan = reductions_read_from("pp512", "Vulkan");
    REQUIRE(vulkan.size() == 1);
    CHECK(vulkan[0] == Approx(1.2589e-6).epsilon(1e-3));
}

// RTX 4090: 330.4 TFLOPS of matrix rate (twice the database's 165.2, see the decode test), 1008
// GB/s, a 512-token batch. Quantized k-quant weights at p 1.0 + e 0.5: (1.6e10 dense + 1e9
// expert FLOPs) x 1.5 / 330.4e12 = 77.18 µs; 8e9 routed expert weights held, each worth x = 160
// tokens a micro-batch: 2 x 8e9 x 160 / 330.4e12 / 512 = 15.13 µs; attention 2e8
// FLOPs x 2 at 330.4 / 1.5 = 220.27 TFLOPS (attention_tflops) = 1.82 µs; 5e9 resident bytes read
// once a batch x 1.5: 14.53 µs; 32 layers x 500 µs / 512 = 31.25 µs. 139.91 µs. FP16 weights at
// 0.6 (no unpacking): 30.87 µs for the products, 93.60 µs in all.
TEST_CASE("prefill time is FLOPs over the matrix rate, weights read once a batch, layer costs") {
    SpeedModel m = test::zeroed_speed_model();
    nvidia(m).compute = 1.0;
    nvidia(m).compute_float = 0.6;
    nvidia(m).prefill_layer_s = 500e-6;
    nvidia(m).attention = 2;
    nvidia(m).expert_compute = 160;
    m.weight_reread = 1.5;
    m.dequant_prefill[static_cast<int>(QuantFamily::k_quant)] = 0.5;
    const Hardware h = test::hardware_of({"rtx-4090"});
    CHECK(matrix_tflops(h.gpus[0]) == Approx(330.4));
    SpeedWork w;
    w.family = QuantFamily::k_quant;
    w.gpus.push_back(DeviceWork{0, 5e9, 1.6e10, 2e8, 1e9, 32, 0, 0, 0, 8e9});
    const double rest = 2 * 8e9 / 330.4e12 / 512 * 160 + 2e8 / 220.27e12 * 2 +
                        5e9 / 1008e9 / 512 * 1.5 + 32 * 500e-6 / 512;
    REQUIRE(prefill_seconds(w, h, m, 512));
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(1.7e10 / 330.4e12 * 1.5 + rest));
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(139.91e-6).epsilon(1e-3));
    w.float_weights = true;
    w.family = QuantFamily::floating;
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(1.7e10 / 330.4e12 * 0.6 + rest));
    CHECK(*prefill_seconds(w, h, m, 512) == Approx(93.60e-6).epsilon(1e-3));
}

// GPUs without matrix units (#34): a Tesla P40 multiplies quantized weights with dp4a at the 47
// INT8 TOPS of NVIDIA's datasheet, FP16 weights at its 11.76 FP32 TFLOPS (FP16 runs at 1/64);
// a Tesla P100 has no dp4a and multiplies both at its 18.7 FP16 TFLOPS. At p = 1 for both kinds
// of weights and t = 1: 1e10 weight FLOPs on the P40 take 1e10 / 47e12 = 212.77 us quantized,
// 1e10 / 11.76e12 = 850.34 us as FP16, and 1e9 attention FLOPs 1e9 / 11.76e12 = 85.03 us
// either way; on the P100 1e10 / 18.7e12 = 534.76 us.
TEST_CASE("prefill multiplies quantized weights at the dp4a rate where a GPU has no matrix units") {
    SpeedModel m = test::zeroed_speed_model();
    auto& c = m.classes[static_cast<int>(SpeedClass::no_matrix_units)];
    c.compute = c.compute_float = c.attention = 1;
    const Hardware p40 = test::hardware_of({"tesla-p40"});
    CHECK(quantized_tflops(p40.gpus[0], false) == Approx(47));
    CHECK(matrix_tflops(p40.gpus[0]) == Approx(11.76));
    SpeedWork w;
    w.family = QuantFamily::legacy;
    w.gpus.push_back(DeviceWork{0, 0, 1e10, 1e9, 0, 1});
    CHECK(*prefill_seconds(w, p40, m, 512) == Approx(212.77e-6 + 85.03e-6).epsilon(1e-4));
    w.float_weights = true;
    w.family = QuantFamily::floating;
    CHECK(*prefill_seconds(w, p40, m, 512) == Approx(850.34e-6 + 85.03e-6).epsilon(1e-4));
    const Hardware p100 = test::hardware_of({"tesla-p100-16gb"});
    CHECK(quantized_tflops(p100.gpus[0], false) == Approx(18.7));
    w.gpus[0].attention_flops = 0;
    w.float_weights = false;
    w.family = QuantFamily::legacy;
    CHECK(*prefill_seconds(w, p100, m, 512) == Approx(534.76e-6).epsilon(1e-4));
}

// Flash attention on AMD runs the TILE kernel on the shaders where llama.cpp has no MMA path
// (#34): an R9700 (RDNA4) reads attention at AMD's vector 'Peak Half Precision' 95.7 TFLOPS,
// half its 191.4 of WMMA (data/gpus/amd.json), an RX 7900 XTX (RDNA3) at its 122.8, which is
// both. At t = 1, 1e9 attention FLOPs take 1e9 / 95.7e12 = 10.449 us on the R9700. An RX 6700
// XT (RDNA2, "no matrix units" in its entry) has a band class of its own, AMD's coefficients.
TEST_CASE("attention on RDNA4 runs at the shaders' FP16 rate, RDNA2 has no matrix units") {
    const Hardware r9700 = test::hardware_of({"radeon-ai-pro-r9700"});
    CHECK(matrix_tflops(r9700.gpus[0]) == Approx(191.4));
    CHECK(attention_tflops(r9700.gpus[0]) == Approx(95.7));
    const Hardware xtx = test::hardware_of({"rx-7900-xtx"});
    CHECK(attention_tflops(xtx.gpus[0]) == Approx(122.8));
    SpeedModel m = test::zeroed_speed_model();
    m.classes[static_cast<int>(SpeedClass::amd)].attention = 1;
    SpeedWork w;
    w.gpus.push_back(DeviceWork{0, 0, 0, 1e9, 0, 1});
    CHECK(*prefill_seconds(w, r9700, m, 512) == Approx(10.449e-6).epsilon(1e-4));
    const SpeedClass rdna2 = speed_class(test::hardware_of({"rx-6700-xt"}).gpus[0]);
    CHECK(rdna2 == SpeedClass::amd_no_matrix_units);
    CHECK(speed_group(rdna2, false) == SpeedClass::amd);
    CHECK(speed_group(rdna2, true) == SpeedClass::amd);
    CHECK(speed_class(xtx.gpus[0]) == SpeedClass::amd);
}

// Qwen3's 8 of 128 experts a token: a micro-batch of 16 tokens leaves (120/128)^16 = 0.356074
// of the experts unpicked (ln(15/16) = -0.0645385, x 16 = -1.032616), so it runs 0.643926 of
// them; 512 tokens leave e^-33 idle. On one RTX 4090 (330.4 TFLOPS, 1008 GB/s) with x = 160 and
// r = 1.5, 8e9 expert weights (4e9 of the 5e9 bytes held) at 16 tokens a micro-batch:
// 2 x 8e9 x 0.643926 / 330.4e12 / 16 x 160 = 311.83 us, and the bytes read,
// (5e9 - 4e9 x 0.356074) / 1008e9 / 16 x 1.5 = 332.56 us.
TEST_CASE("a micro-batch of few tokens runs, and reads, only the experts its tokens pick") {
    CHECK(experts_touched(0, 16) == 1);
    CHECK(experts_touched(8.0 / 128, 16) == Approx(0.643926).epsilon(1e-5));
    CHECK(experts_touched(8.0 / 128, 512) > 1 - 1e-14);
    SpeedModel m = test::zeroed_speed_model();
    nvidia(m).expert_compute = 160;
    m.weight_reread = 1.5;
    const Hardware h = test::hardware_of({"rtx-4090"});
    SpeedWork w;
    w.expert_share = 8.0 / 128;
    DeviceWork d;
    d.layers = 48;
    d.resident_bytes = 5e9;
    d.expert_weights = 8e9;
    d.expert_bytes = 4e9;
    w.gpus.push_back(d);
    REQUIRE(prefill_seconds(w, h, m, 16));
    CHECK(*prefill_seconds(w, h, m, 16) == Approx(311.83e-6 + 332.56e-6).epsilon(1e-4));
    // At 512 tokens every expert runs: the whole 5e9 bytes and 8e9 weights, as before.
    CHECK(*prefill_seconds(w, h, m, 512) ==
          Approx(2 * 8e9 / 330.4e12 / 512 * 160 + 5e9 / 1008e9 / 512 * 1.5));
}

// The matrix units llama.cpp's CUDA/HIP kernels use (ggml-cuda/common.cuh at 0ad4a86): FP16 from
// Volta/Turing, BF16 from Ampere, both on RDNA3/RDNA4 (WMMA) and CDNA (MFMA); none on Pascal,
// Vega 20 or RDNA2. The speed class of GPUs without them holds Pascal and Vega 20; RDNA2 stays
// with the Radeon cards its runs were fitted with.
TEST_CASE("one list of the GPUs with matrix units: MMF's products and the speed class") {
    const auto f16 = [](const char* id) {
        return has_matrix_units(test::gpu(id), MatrixFloat::f16);
    };
    const auto bf16 = [](const char* id) {
        return has_matrix_units(test::gpu(id), MatrixFloat::bf16);
    };
    CHECK(f16("rtx-4090"));
    CHECK(bf16("rtx-4090"));
    CHECK(f16("rtx-2080-ti"));
    CHECK_FALSE(bf16("rtx-2080-ti"));
    CHECK(f16("v100-32gb"));
    CHECK_FALSE(bf16("v100-32gb"));
    CHECK_FALSE(f16("tesla-p40"));
    CHECK(f16("rx-7900-xtx"));
    CHECK(bf16("mi300x"));
    CHECK_FALSE(f16("mi50-32gb"));
    CHECK_FALSE(f16("rx-6800-xt"));
    CHECK_FALSE(f16("arc-b580"));  // not asked: SYCL and Vulkan have their own kernels
    const auto cls = [](const char* id) { return speed_class(device_for(test::gpu(id))); };
    CHECK(cls("tesla-p40") == SpeedClass::no_matrix_units);
    CHECK(cls("mi50-32gb") == SpeedClass::no_matrix_units);
    // RDNA2: no matrix units, fitted with the Radeon cards under a band of its own
    CHECK(cls("rx-6800-xt") == SpeedClass::amd_no_matrix_units);
    // Volta: FP16 tensor cores without int8 ones, so ggml_cuda_should_use_mmq sends its
    // quantized prompts of 64 tokens or more to cuBLAS (an NVIDIA GPU without
    // turing_mma_available uses MMQ below MMQ_DP4A_MAX_BATCH_SIZE only): its own prompt
    // coefficients, the other datacenter cards' decode ones; an A100 (Ampere) runs MMQ.
    CHECK(cls("v100-32gb") == SpeedClass::nvidia_volta);
    CHECK(speed_group(SpeedClass::nvidia_volta, true) == SpeedClass::nvidia_volta);
    CHECK(speed_group(SpeedClass::nvidia_volta, false) == SpeedClass::nvidia_datacenter);
    CHECK(cls("a100-80gb-sxm") == SpeedClass::nvidia_datacenter);
    CHECK(cls("arc-b580") == SpeedClass::intel);
    CHECK(cls("m4-max-128gb") == SpeedClass::apple);
}

TEST_CASE("a prompt read in micro-batches under 128 tokens is shown no prefill band") {
    CHECK(in_band_regime(false, 1));
    CHECK_FALSE(in_band_regime(true, 127));
    CHECK(in_band_regime(true, 128));
    const Hardware h = test::hardware_of({"rtx-4090"});
    auto p = place(test::parts_of("llama-3.1-8b", "Q4_K_M", 8192), h, {});
    REQUIRE(p);
    const Model& m = test::model("llama-3.1-8b");
    const Quant& q = test::quant("Q4_K_M");
    CHECK(estimate_speed(m, q, *p, h, 8192, 512).prefill_band.has_value());
    const Speed small = estimate_speed(m, q, *p, h, 8192, 64);
    CHECK_FALSE(small.prefill_band.has_value());
    CHECK(small.decode_band.has_value());
}

TEST_CASE("no GPU gives no prefill figure, a GPU without a bandwidth figure no decode figure") {
    const SpeedModel& m = fitted_speed_model();
    SpeedWork w;
    w.ram.read_bytes = 1e9;
    CHECK_FALSE(prefill_seconds(w, test::hardware_of({}), m, 512).has_value());
    Hardware h = test::hardware_of({"rtx-4090"});
    h.gpus[0].bandwidth_gbps = 0;
    w.gpus.push_back(DeviceWork{1e9, 0, 0, 0, 0, 32, 0, 0, 0});
    CHECK(decode_seconds(w, h, m) == 0);
}

// Llama 3.1 8B (8.03e9 active parameters; the input embedding 128,256 x 4,096 = 525,336,576 is
// a lookup, not a product): 2 x (8.03e9 - 525,336,576) = 15,009,326,848 dense FLOPs a token.
// Attention against 1,000 positions (a 0-depth test of 2,000 tokens): 32 layers x 2 x 32 heads
// x (128 + 128) dims x 1,000 = 524,288,000 FLOPs.
TEST_CASE("speed_work counts a token's FLOPs and reads from the placement") {
    const Quant& q4 = test::quant("Q4_K_M");
    const Model& m = test::model("llama-3.1-8b");
    const Hardware h = test::hardware_of({"rtx-4090"});
    auto p = place(test::parts_of("llama-3.1-8b", "Q4_K_M", 8192), h, {});
    REQUIRE(p);
    const SpeedWork w = speed_work(m, q4, *p, 8192, {0, 2000});
    REQUIRE(w.gpus.size() == 1);
    CHECK(w.gpus[0].dense_flops == Approx(15009326848.0));
    CHECK(w.gpus[0].attention_flops == Approx(524288000.0));
    CHECK(w.gpus[0].expert_flops == 0);
    CHECK(w.gpus[0].layers == 32);
    CHECK_FALSE(w.float_weights);
    // The KV read: the cache sized for 8,192 tokens, read up to the 1,000th position.
    CHECK(w.gpus[0].read_bytes ==
          Approx(static_cast<double>(p->gpus[0].active_weights) +
                 static_cast<double>(p->gpus[0].kv_cache) * 1000.0 / 8192.0));
    CHECK(speed_work(m, test::quant("FP16"), *p, 8192, {0, 1}).float_weights);
}

// MLA as llama.cpp runs it, absorbed (src/models/deepseek2.cpp): GLM-4.7-Flash's 20 heads each
// meet the 512-wide latent plus the 64-wide rope key and take back a 512-wide value, 1,088 dims
// a position, not the model's own 192 + 64 + 256 = 512 (#34). At 1,000 positions (a 0-depth
// test of 2,000 tokens), 47 layers: 2 x 20 x 1,088 x 1,000 x 47 = 2,045,440,000 FLOPs.
TEST_CASE("speed_work counts MLA's attention at its absorbed dims") {
    const Model& m = test::model("glm-4.7-flash");
    REQUIRE(m.arch.layer_groups.size() == 1);
    REQUIRE(m.arch.layer_groups[0].kv_lora_rank == 512);
    const Hardware h = test::hardware_of({"rtx-4090"});
    auto p = place(test::parts_of("glm-4.7-flash", "Q4_K_M", 8192), h, {});
    REQUIRE(p);
    const SpeedWork w = speed_work(m, test::quant("Q4_K_M"), *p, 8192, {0, 2000});
    REQUIRE(w.gpus.size() == 1);
    CHECK(w.gpus[0].attention_flops == Approx(2045440000.0));
}

// Qwen3-30B-A3B: 48 MoE layers, 128 experts of 3 x 2,048 x 768 parameters, 8 a token: the
// routed part of a token is 48 x 8 x 4,718,592 = 1,811,939,328 parameters, 2 FLOPs each.
TEST_CASE("speed_work splits a MoE token's FLOPs into dense and routed-expert work") {
    const Model& m = test::model("qwen3-30b-a3b");
    const Hardware h = test::hardware_of({"rtx-pro-6000-blackwell"});
    auto p = place(test::parts_of("qwen3-30b-a3b", "Q4_K_M", 4096), h, {});
    REQUIRE(p);
    const SpeedWork w = speed_work(m, test::quant("Q4_K_M"), *p, 4096, {0, 512});
    CHECK(w.gpus[0].expert_flops == Approx(2.0 * 1811939328.0));
    CHECK(w.gpus[0].moe_layers == 48);
}

TEST_CASE("the fitted model gives a decode and a prefill figure on every database GPU") {
    const Model& m = test::model("llama-3.2-3b");
    const Quant& q = test::quant("Q4_K_M");
    for (const Gpu& g : test::database().gpus) {
        INFO(g.id);
        Hardware h;
        h.gpus.push_back(device_for(g));
        h.ram = 64'000'000'000ULL;
        auto p = place(test::parts_of("llama-3.2-3b", "Q4_K_M", 4096), h, {});
        REQUIRE(p);
        const Speed s = estimate_speed(m, q, *p, h, 4096);
        CHECK(s.decode_tokens_per_s > 0);
        CHECK(s.prefill_tokens_per_s.has_value());
    }
}

TEST_CASE("speed: one of n sequences reads its own share of the cache, not all of it") {
    // A 32,768-token cache of 4 sequences: one stream at its full 8,192 tokens reads 8,191.5 of
    // the 32,768 cached tokens' bytes, as one sequence with a cache of 8,192 reads 8,191.5 of
    // 8,192 (the weights read the same). Before, it was charged with the other three's too.
    const Model& m = test::model("llama-3.1-8b");
    const Quant& q = test::quant("Q4_K_M");
    Hardware h;
    h.gpus.push_back(device_for(test::gpu("rtx-4090")));
    h.ram = 64'000'000'000ULL;
    const Placement four = place(test::parts_of("llama-3.1-8b", "Q4_K_M", 32768), h, {}).value();
    const Speed shared = estimate_speed(m, q, four, h, 32768, 512, 4);
    const Speed whole = estimate_speed(m, q, four, h, 32768, 512, 1);
    const SpeedWork own = speed_work(m, q, four, 32768, {8191, 1});
    const SpeedWork all = speed_work(m, q, four, 32768, {32767, 1});
    // The KV bytes read: 8,191.5 / 32,768 of the cache against 32,767.5 / 32,768.
    const auto kv = static_cast<double>(four.gpus[0].kv_cache);
    CHECK(all.gpus[0].read_bytes - own.gpus[0].read_bytes == Approx(kv * 24576.0 / 32768.0));
    REQUIRE(shared.decode_at_context);
    REQUIRE(whole.decode_at_context);
    CHECK(*shared.decode_at_context > *whole.decode_at_context);
    CHECK(shared.decode_tokens_per_s == Approx(whole.decode_tokens_per_s));
}

// No GPU: the prompt at the CPU's int8 rate x the share the published CPU runs reached. A Core
// i5-4278U (2 cores x 32-byte AVX2 vectors x 2 x 3.1 GHz = 0.3968 TOPS) reading Llama 3.2 3B's
// pp512: per token 2 x 3.21e9 = 6,420,000,000 FLOPs of products (its embeddings are tied: the
// output head's product with the table counts) and 2 x 24 heads x (128 + 128) x 256 positions on
// average x 28 layers = 88,080,384 of attention, 6,508,080,384 in all; at 0.229 x 0.3968e12 that
// is 13.96 tokens/s, where
// geerlingguy/ai-benchmarks#53 measured 17.70 (validation/llama-bench.json). Float weights, and
// a CPU not known, give no figure.
TEST_CASE("speed: a CPU-only plan reads the prompt at the CPU's int8 rate") {
    Hardware h;
    h.ram = Bytes{64} * 1000 * 1000 * 1000;
    h.cpu = {.cores = 2, .vector_bytes = 32, .ghz = 3.1, .name = "i5-4278U"};
    const Model& m = test::model("llama-3.2-3b");
    const auto speed = [&](const char* quant) {
        auto p = place(test::parts_of("llama-3.2-3b", quant, 8192), h, {});
        REQUIRE(p);
        return estimate_speed(m, test::quant(quant), *p, h, 8192, 512);
    };
    const Speed s = speed("Q4_K_M");
    REQUIRE(s.prefill_tokens_per_s);
    CHECK(*s.prefill_tokens_per_s == Approx(0.229 * 0.3968e12 / 6508080384.0).epsilon(1e-6));
    CHECK(*s.prefill_tokens_per_s == Approx(13.96).epsilon(0.001));
    CHECK(s.cpu_only);
    CHECK_FALSE(s.prefill_band);
    CHECK_FALSE(speed("BF16").prefill_tokens_per_s);
    h.cpu = {};
    CHECK_FALSE(speed("Q4_K_M").prefill_tokens_per_s);
}

// Step-3.5-Flash's 33 sliding layers have 96 query heads, its 12 full ones the model's 64
// (data/models/step.json): the sliding layers' attention FLOPs are 96 / 64 = 1.5x what the
// model's head count would give, the full layers' unchanged. Worked as differences so the
// positions each layer attends to cancel: (F - F_full) = 1.5 x (F_64 - F_full).
TEST_CASE("speed_basis counts a layer group's own query heads") {
    const Model& m = test::model("step-3.5-flash");
    REQUIRE(m.arch.layer_groups.size() == 2);
    REQUIRE(m.arch.layer_groups[1].heads == 96);
    REQUIRE(m.arch.attention.heads == 64);
    Model heads64 = m;
    heads64.arch.layer_groups[1].heads = 0;
    Model full_only = m;
    full_only.arch.layer_groups.pop_back();
    const Quant& q = test::quant("Q4_K_M");
    const auto flops = [&](const Model& x) {
        return speed_basis(x, q, 32768, {16384, 512}).attention_flops;
    };
    const double full = flops(full_only);
    REQUIRE(flops(heads64) > full);
    CHECK(flops(m) - full == Approx(1.5 * (flops(heads64) - full)));
}
