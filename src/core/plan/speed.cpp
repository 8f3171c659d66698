#include "canitrun/speed.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>
#include <vector>

#include "canitrun/gpu.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/speed_activation.hpp"

namespace canitrun {

bool busy(const DeviceWork& w) {
    return w.read_bytes > 0 || w.layers > 0;
}

double experts_touched(double expert_share, double batch) {
    if (expert_share <= 0 || expert_share >= 1) return 1;
    return 1 - std::pow(1 - expert_share, batch);
}

double hand_over_seconds(const SpeedWork& work, const SpeedModel& m) {
    return m.gpu_hop_s + work.hand_over_bytes / (m.pcie_gbps * 1e9);
}

SpeedClass speed_class(const GpuDevice& device) {
    if (device.gpu == nullptr) return SpeedClass::unknown;
    const Gpu& g = *device.gpu;
    // Views, whose == compares the lengths first: asked for every device of every placement a
    // split search tries (4 % of `fit`'s instructions on three GPUs as std::string compares).
    const std::string_view vendor = g.vendor, architecture = g.architecture;
    // RDNA2 has no matrix units either, but its runs (RX 6700 XT, RX 6800 XT) are fitted with
    // the other Radeon cards' coefficients under a band of its own (amd_no_matrix_units below):
    // in this class it read AMD decode worse (13 -> 21 % median, tools/speed/fit.sh).
    const bool cuda_or_hip = vendor == "nvidia" || vendor == "amd";
    if (cuda_or_hip && !has_matrix_units(g, MatrixFloat::f16) && architecture != "RDNA2")
        return SpeedClass::no_matrix_units;
    if (vendor == "apple") return SpeedClass::apple;
    if (vendor == "intel") return SpeedClass::intel;
    if (vendor == "amd") {
        if (g.gpu_class == GpuClass::unified) return SpeedClass::amd_apu;
        return architecture == "RDNA2" ? SpeedClass::amd_no_matrix_units : SpeedClass::amd;
    }
    if (vendor == "nvidia") {
        if (g.gpu_class == GpuClass::datacenter)
            return architecture == "Volta" ? SpeedClass::nvidia_volta
                                           : SpeedClass::nvidia_datacenter;
        if (g.gpu_class == GpuClass::unified) return SpeedClass::nvidia_unified;
        if (g.gpu_class == GpuClass::workstation) return SpeedClass::nvidia_workstation;
        return SpeedClass::nvidia;
    }
    return SpeedClass::unknown;
}

SpeedClass speed_group(SpeedClass c, bool prefill) {
    switch (c) {
        case SpeedClass::nvidia_volta:
            return prefill ? c : SpeedClass::nvidia_datacenter;
        case SpeedClass::nvidia_workstation:
        case SpeedClass::nvidia_unified:
        case SpeedClass::unknown:
            return SpeedClass::nvidia;
        case SpeedClass::amd_no_matrix_units:
            return SpeedClass::amd;
        default:
            return c;
    }
}

int apple_chip(const GpuDevice& device) {
    if (device.gpu == nullptr || device.gpu->vendor != "apple") return 0;
    const std::string& arch = device.gpu->architecture;
    const std::string prefix = "Apple M";
    if (!arch.starts_with(prefix) || arch.size() != prefix.size() + 1) return 0;
    const int generation = arch.back() - '0';
    if (generation < 1 || generation > kAppleGenerations) return 0;
    const std::string& name = device.gpu->name;
    const auto has = [&name](const char* word) { return name.find(word) != std::string::npos; };
    const int tier = has(" Ultra") ? 3 : has(" Max") ? 2 : has(" Pro") ? 1 : 0;
    return 1 + (generation - 1) * 4 + tier;
}

namespace {

// a: the class's, or an Apple chip's own where the fit has one.
double bandwidth_multiplier(const GpuDevice& device, const SpeedClassCoefficients& c,
                            const SpeedModel& m) {
    const int chip = apple_chip(device);
    return chip > 0 && m.apple_bandwidth[chip - 1] > 0 ? m.apple_bandwidth[chip - 1] : c.bandwidth;
}

}  // namespace

double kv_position_seconds(const GpuDevice& device, const SpeedModel& m) {
    const bool xe2 = device.gpu != nullptr && device.gpu->vendor == "intel" &&
                     device.gpu->architecture == "Battlemage";
    return xe2 ? m.xe2_kv_position_s : 0;
}

namespace {

// Whether MMF (mmf.cu) has the matrix instructions for a float expert product on `g`: the GPU's
// matrix units for the type, but BF16 on CDNA3 (ggml_cuda_should_use_mmf refuses it there).
bool mmf_has_type(const Gpu& g, bool bf16) {
    if (bf16 && g.architecture == "CDNA3") return false;
    return has_matrix_units(g, bf16 ? MatrixFloat::bf16 : MatrixFloat::f16);
}

// Whether ggml_cuda_should_use_mmq refuses a quantized mul_mat_id of `batch` tokens on `g`, which
// ggml_cuda_mul_mat_id then runs one expert at a time (ggml-cuda.cu at ggml-org/ggml 43419ff0,
// llama.cpp of June 2026). An NVIDIA GPU without Turing's int8 matrix instructions stays on MMQ
// only where it has dp4a and, having FP16 tensor cores (Volta), below MMQ_DP4A_MAX_BATCH_SIZE
// (64 tokens): "return !fp16_mma_hardware_available(cc) || ne11 < MMQ_DP4A_MAX_BATCH_SIZE"; a
// GP100 (Tesla P100, compute 6.0, no dp4a) never ("ggml_cuda_highest_compiled_arch(cc) <
// GGML_CUDA_CC_DP4A: return false"). A Pascal card with dp4a (P40, GTX 10x0) runs MMQ.
constexpr double kMmqDp4aMaxBatch = 64;
bool mmq_declines_experts(const Gpu& g, double batch) {
    if (g.vendor != "nvidia") return false;
    if (g.architecture == "Volta") return batch >= kMmqDp4aMaxBatch;
    return g.architecture == "Pascal" && g.int8_dot_tops <= 0;
}

}  // namespace

int lone_expert_products(const SpeedWork& work, const GpuDevice& device, double batch) {
    if (work.experts <= 0 || batch <= 1 || device.gpu == nullptr) return 0;
    const Gpu& g = *device.gpu;
    if (g.vendor != "nvidia" && g.vendor != "amd") return 0;  // Metal, Vulkan: their own kernels
    if (!work.float_weights) return mmq_declines_experts(g, batch) ? work.expert_matrices : 0;
    if (!mmf_has_type(g, work.bf16_weights)) return work.expert_matrices;
    // MMF's limits for a mul_mat_id (ggml_cuda_should_use_mmf): by the rows it writes.
    const auto lone = [&](std::uint64_t rows) { return rows <= 1024 ? batch > 512 : batch > 128; };
    const int ffn = work.expert_matrices - 1;  // gate and up, or up alone
    return (lone(work.expert_ffn_rows) ? ffn : 0) + (lone(work.expert_down_rows) ? 1 : 0);
}

const std::string& written_type(const Quant& quant) {
    return quant.file_type.empty() ? quant.id : quant.file_type;
}

QuantFamily quant_family(const Quant& quant) {
    // A file's own quantization by the type it was written as (#33, #37): the same bytes, the
    // same family as the database's quantization of that name.
    const std::string& id = written_type(quant);
    if (is_float_quant(quant)) return QuantFamily::floating;
    if (id.starts_with("IQ") || id.starts_with("TQ")) return QuantFamily::i_quant;
    if (id.find("FP4") != std::string::npos) return QuantFamily::fp4;
    if (id.find("_K") != std::string::npos) return QuantFamily::k_quant;
    return QuantFamily::legacy;
}

const char* quant_family_name(QuantFamily f) {
    constexpr const char* kNames[] = {"float", "legacy", "k-quant", "i-quant", "fp4"};
    static_assert(std::size(kNames) == kQuantFamilyCount, "one name per QuantFamily");
    return kNames[static_cast<int>(f)];
}

std::optional<double> speed_band(const SpeedModel& m, SpeedClass c, bool prefill) {
    const SpeedClassCoefficients& k = m.of(c);
    if ((prefill ? k.prefill_rows : k.decode_rows) < kMinBandRuns) return std::nullopt;
    return prefill ? k.prefill_band : k.decode_band;
}

namespace {

// One table for the class's id (JSON, the fitted source) and its words (text).
struct SpeedClassNames {
    SpeedClass c;
    const char* name;
    const char* words;
};
constexpr SpeedClassNames kSpeedClassNames[] = {
    {SpeedClass::nvidia, "nvidia", "NVIDIA GeForce GPUs"},
    {SpeedClass::nvidia_workstation, "nvidia_workstation", "NVIDIA workstation GPUs"},
    {SpeedClass::nvidia_datacenter, "nvidia_datacenter", "NVIDIA datacenter GPUs"},
    {SpeedClass::nvidia_unified, "nvidia_unified", "NVIDIA unified-memory machines (DGX Spark)"},
    {SpeedClass::amd, "amd", "AMD discrete GPUs"},
    {SpeedClass::amd_apu, "amd_apu", "AMD APUs (Ryzen AI Max)"},
    {SpeedClass::apple, "apple", "Apple silicon"},
    {SpeedClass::intel, "intel", "Intel GPUs"},
    {SpeedClass::no_matrix_units, "no_matrix_units", "GPUs without matrix units (Pascal, Vega 20)"},
    {SpeedClass::amd_no_matrix_units, "amd_no_matrix_units",
     "AMD GPUs without matrix units (RDNA2)"},
    {SpeedClass::nvidia_volta, "nvidia_volta", "NVIDIA Volta GPUs (Tesla V100)"},
    {SpeedClass::unknown, "unknown", "GPUs of any kind"},
};
constexpr bool in_enum_order() {
    for (int i = 0; i < kSpeedClassCount; ++i) {
        if (static_cast<int>(kSpeedClassNames[i].c) != i) return false;
    }
    return true;
}
static_assert(std::size(kSpeedClassNames) == kSpeedClassCount && in_enum_order(),
              "one row per SpeedClass, in the enum's order");

const SpeedClassNames& names_of(SpeedClass c) {
    return kSpeedClassNames[static_cast<int>(c)];
}

}  // namespace

const char* speed_class_name(SpeedClass c) {
    return names_of(c).name;
}

const char* speed_class_words(SpeedClass c) {
    return names_of(c).words;
}

namespace {

// An Intel GPU's extra unpacking of a 4-bit float weight (SpeedModel::intel_fp4_unpack). On Mesa
// ggml-vulkan sends an Intel GPU's mat-vecs of every type but Q4_0 and Q5_1 (k >= 2048) to MMVQ
// (ggml_vk_should_use_mmvq at ggml-org/ggml 0ce7ad34, May 2026, and d99724f2), whose MXFP4
// repack loads a block's 17 bytes one at a time ("1-byte loads for mxfp4 blocks") and looks
// every E2M1 value up in kvalues_mxfp4 before its int8 dot product, with an E8M0 exponent a block
// (mul_mat_vecq_funcs.glsl at 0ce7ad34); a K-quant's nibbles go to the dot product as loaded,
// 4 bytes at a time. No Intel GPU has an FP4 unit to do it (NVIDIA's Blackwell does).
double intel_fp4_unpack(const SpeedWork& work, const GpuDevice& device, const SpeedModel& m) {
    const bool intel = device.gpu != nullptr && device.gpu->vendor == "intel";
    return intel && work.family == QuantFamily::fp4 ? m.intel_fp4_unpack : 0;
}

// A class's own unpacking cost (u) on `device`, in bytes of its read time per weight; float
// weights do not pay it.
double quantized_unpack(const SpeedWork& work, const SpeedClassCoefficients& c,
                        const GpuDevice& device, const SpeedModel& m) {
    if (work.family == QuantFamily::floating) return 0;
    return c.quantized_unpack * unpack_scale(device) + intel_fp4_unpack(work, device, m);
}

}  // namespace

namespace {

// The cache bytes a Metal decode reads again beyond once (SpeedWork::latent_readers).
double metal_cache_rereads(const DeviceWork& w, const GpuDevice& device, const SpeedWork& work) {
    const bool metal = device.gpu != nullptr && device.gpu->vendor == "apple";
    return metal ? w.cache_bytes * (work.latent_readers - 1) : 0;
}

// One GPU's decode seconds for its work: what it reads (bandwidth and unpacking) and what it
// pays per layer (launches, the recurrent scan, routing).
struct DeviceSeconds {
    double reads = 0;
    double fixed = 0;
};

// How many times a dense layer's graph nodes a MoE layer's graph holds, for the CUDA graph check
// (SpeedModel::graph_check_layer_s), which walked them one by one. Pessimist228's nsys profiles of
// llama.cpp b10326 on an RTX 5090 (CUDA graphs on) count 1543.43 kernels a token for
// Qwen3.5-35B-A3B, 40 MoE layers, and 857.95 for Qwen3.5-9B, 32 dense ones: "kernels_per_token"
// in data/rtx5090-drv580/attribution.json and attribution_9b.json (Pessimist228/rtx-5090-in-qwen-
// 3.5-35b-a3b-Why-so-slow at c65a94b7), 38.59 and 26.81 a layer of one hybrid family with and
// without routed experts: 1.44. Kernels stand for the graph's nodes (views launch none).
// With one cost for every layer, jiegec/kb's b8396 RTX 4090 MoE decodes asked a larger kg than
// its dense ones, and with that source left out pendakwahteknologi's dense RTX 5090 runs of the
// same builds read at 0.77-0.93x their measure (#34).
constexpr double kMoeLayerGraphNodes = (1543.43 / 40) / (857.95 / 32);

// The layers the CUDA graph check walks, each counted by its nodes: a MoE layer's graph holds
// kMoeLayerGraphNodes times a dense one's.
double graph_check_layers(const DeviceWork& w) {
    return static_cast<double>(w.layers) +
           static_cast<double>(w.moe_layers) * (kMoeLayerGraphNodes - 1);
}

DeviceSeconds device_decode_seconds(const DeviceWork& w, const GpuDevice& device,
                                    const SpeedWork& work, const SpeedModel& m) {
    const auto family = static_cast<std::size_t>(work.family);
    const SpeedClassCoefficients& c = m.of(speed_class(device));
    const double bandwidth = device.bandwidth_gbps * 1e9;
    return {
        (w.read_bytes + metal_cache_rereads(w, device, work)) / bandwidth *
                bandwidth_multiplier(device, c, m) +
            w.weight_count / bandwidth * (m.dequant[family] + quantized_unpack(work, c, device, m)),
        static_cast<double>(w.layers) *
                (c.layer_s + (work.older_build ? m.older_build_layer_s : 0) +
                 (work.hip_no_graphs ? m.hip_launch_layer_s : 0)) +
            (work.graph_node_check ? graph_check_layers(w) * m.graph_check_layer_s : 0) +
            w.cache_positions * kv_position_seconds(device, m) +
            w.recurrent_layers * 1e12 / bandwidth * c.recurrent_layer_s +
            static_cast<double>(w.moe_layers) * m.moe_layer_s};
}

}  // namespace

double decode_seconds(const SpeedWork& work, const Hardware& hardware, const SpeedModel& m) {
    const auto family = static_cast<std::size_t>(work.family);
    double seconds = 0;
    std::uint64_t used = 0;
    // Each GPU's seconds are kept only under -sm tensor, which takes the slowest: a split search
    // asks this per unit and GPU, and the list's allocation was a sixth of the call.
    std::vector<DeviceSeconds> each;
    if (work.tensor_parallel) each.reserve(work.gpus.size());
    for (std::size_t d = 0; d < work.gpus.size() && d < hardware.gpus.size(); ++d) {
        const DeviceWork& w = work.gpus[d];
        if (!busy(w)) continue;
        const GpuDevice& device = hardware.gpus[d];
        if (device.bandwidth_gbps <= 0) return 0;  // unknown bandwidth: no figure
        const DeviceSeconds t = device_decode_seconds(w, device, work, m);
        seconds += t.reads + t.fixed;
        if (work.tensor_parallel) each.push_back(t);
        ++used;
    }
    if (work.tensor_parallel) {
        double slowest = 0;
        for (const DeviceSeconds& t : each) {
            slowest = std::max(slowest, t.reads + t.fixed / static_cast<double>(each.size()));
        }
        return slowest + work.reductions * m.meta_reduce_s;
    }
    // Each GPU past the first adds a hand-over: the fitted h, and the hidden state's copy over
    // PCIe, which is not fitted (the runs cannot tell a microsecond per token apart) but keeps a
    // split of the same reads on more GPUs from ever reading as fast as on fewer, when the fit
    // puts h at 0 (#34: with datacenter cards' decode fitted apart, the layer-split runs put
    // their cost in those cards' per-layer time instead).
    if (used > 1) {
        seconds += static_cast<double>(used - 1) * hand_over_seconds(work, m);
    }
    if (work.ram.read_bytes > 0) {
        if (hardware.ram_bandwidth_gbps <= 0) return 0;
        const double ram = hardware.ram_bandwidth_gbps * 1e9 * m.ram_bandwidth_efficiency;
        const double rereads =
            hardware.gpus.empty() ? 0 : metal_cache_rereads(work.ram, hardware.gpus.front(), work);
        seconds += (work.ram.read_bytes + rereads) / ram;
        // Beside GPUs, a layer (or a layer's experts) moved to RAM keeps the fixed costs it had
        // on the first GPU: kernel launches, routing, recurrent steps and dequantization, the
        // last two at RAM's bandwidth. Not fitted (no published run offloads): it keeps the
        // model monotonic, so moving work to RAM never reads as faster (tests/best_plan_test).
        if (!hardware.gpus.empty()) {
            const SpeedClassCoefficients& c = m.of(speed_class(hardware.gpus.front()));
            const DeviceWork& w = work.ram;
            seconds +=
                static_cast<double>(w.layers) * c.layer_s +
                w.recurrent_layers * 1e12 / ram * c.recurrent_layer_s +
                static_cast<double>(w.moe_layers) * m.moe_layer_s +
                w.weight_count / ram *
                    (m.dequant[family] + quantized_unpack(work, c, hardware.gpus.front(), m));
        }
    }
    return seconds;
}

bool fp16_gemm_prompt(const SpeedWork& work, const GpuDevice& device) {
    if (!work.cublas_quantized || work.float_weights || device.gpu == nullptr) return false;
    const Gpu& g = *device.gpu;
    return g.vendor == "nvidia" && has_matrix_units(g, MatrixFloat::f16) &&
           speed_class(device) != SpeedClass::nvidia_volta;
}

double mmq_reread_bytes(const DeviceWork& w, const SpeedWork& work, const GpuDevice& device,
                        double batch) {
    constexpr double kMmqTile = 128;  // mmq_x and mmq_y with int8 tensor cores
    constexpr double kQ8_1BytesPerValue = 36.0 / 32.0;
    if (device.gpu == nullptr || work.float_weights || work.weights_per_byte <= 0) return 0;
    const Gpu& g = *device.gpu;
    if (g.l2_cache_bytes == 0 || g.sm_count == 0 || g.vendor != "nvidia" ||
        !has_matrix_units(g, MatrixFloat::f16) || speed_class(device) == SpeedClass::nvidia_volta ||
        fp16_gemm_prompt(work, device))
        return 0;
    const double token_tiles = std::ceil(batch / kMmqTile);
    if (token_tiles <= 1 || w.dense_ffn_layers <= 0) return 0;
    const auto ffn = static_cast<double>(work.ffn_rows);
    const auto hidden = static_cast<double>(work.hidden_size);
    const double held_rows = static_cast<double>(g.sm_count) * kMmqTile;
    const auto l2 = static_cast<double>(g.l2_cache_bytes);
    // One product's weight bytes where what a round of tiles keeps in L2 overflows it, else 0:
    // the rows the SMs hold at once, the token tile's activations (q8_1: 36 bytes a 32 values)
    // and the round's FP32 outputs, written through L2.
    const auto overflowing = [&](double rows, double inner) {
        const double held = std::min(rows, held_rows);
        const double round = held * inner / work.weights_per_byte +
                             kMmqTile * inner * kQ8_1BytesPerValue + held * kMmqTile * 4;
        return round > l2 ? rows * inner / work.weights_per_byte : 0.0;
    };
    const double layer = (work.ffn_matrices - 1) * overflowing(ffn, hidden) +
                         overflowing(hidden, ffn);  // gate and up, then down
    return (token_tiles - 1) * layer * w.dense_ffn_layers;
}

namespace {

// One device's prefill seconds per prompt token for work `w` on `device`, in micro-batches of
// `batch` tokens: the weights' products at the rate their type is multiplied at, attention at
// the rate llama.cpp's flash-attention kernel runs at on the device (attention_tflops).
double prefill_terms(const DeviceWork& w, const SpeedWork& work, const GpuDevice& device,
                     double batch, const SpeedClassCoefficients& c, const SpeedModel& m) {
    const double clock = sustained_clock_share(device);
    // A quantized product run as an FP16 GEMM (fp16_gemm_prompt) is an FP16 file's: its rate
    // and multiplier, no unpacking of its own (the conversion is a read, prefill_seconds).
    const bool fp16_gemm = fp16_gemm_prompt(work, device);
    const bool as_float = work.float_weights || fp16_gemm;
    const double rate = (as_float ? float_tflops(device, work.bf16_weights)
                                  : quantized_tflops(device, work.q4_legacy_weights)) *
                        1e12 * clock;
    const double attention_rate = attention_tflops(device) * 1e12 * clock;
    const double per_flop =
        (as_float ? c.compute_float : c.compute) +
        (fp16_gemm ? 0 : m.dequant_prefill[static_cast<std::size_t>(work.family)]) +
        (work.older_build ? m.older_build_compute : 0);
    return (w.dense_flops + w.expert_flops) / rate * per_flop +
           w.expert_flops / rate * c.expert_flop +
           2 * w.expert_weights * experts_touched(work.expert_share, batch) / rate / batch *
               c.expert_compute +
           (w.attention_flops +
            (wide_head_attention_slowdown(device) - 1) * w.wide_head_attention_flops +
            (attention_skips_masked_cells(device) ? 0 : w.masked_attention_flops)) /
               attention_rate * c.attention +
           static_cast<double>(w.moe_layers) * work.experts *
               experts_touched(work.expert_share, batch) *
               lone_expert_products(work, device, batch) *
               ((work.float_weights ? work.expert_matrix_weights * 2 /
                                          (device.bandwidth_gbps * 1e9) * m.lone_expert_read
                                    : 0) +
                m.lone_expert_call_s) /
               batch +
           static_cast<double>(w.moe_layers) * lone_expert_products(work, device, batch) *
               work.experts * (work.experts * work.expert_share) * m.lone_expert_sort_s;
}

}  // namespace

std::optional<double> cpu_prefill_seconds(const SpeedWork& work, const Hardware& hardware,
                                          const SpeedModel& m) {
    const double rate = cpu_int8_tops(hardware.cpu) * 1e12 * m.cpu_prefill_efficiency;
    const DeviceWork& w = work.ram;
    const double flops = w.dense_flops + w.expert_flops + w.attention_flops;
    if (work.float_weights || rate <= 0 || flops <= 0) return std::nullopt;
    return flops / rate;
}

std::optional<double> prefill_seconds(const SpeedWork& work, const Hardware& hardware,
                                      const SpeedModel& m, std::uint64_t ubatch) {
    if (ubatch == 0) return std::nullopt;
    if (hardware.gpus.empty()) return cpu_prefill_seconds(work, hardware, m);
    const auto batch = static_cast<double>(ubatch);
    // Under -sm tensor the GPUs run at once, each on its slices, sharing the per-layer costs
    // (launches, the recurrent scan) as a layer split of the same GPUs shares them: decode's rule.
    double at_once = 0;
    for (std::size_t d = 0; d < work.gpus.size() && d < hardware.gpus.size(); ++d) {
        at_once += busy(work.gpus[d]) ? 1 : 0;
    }
    double seconds = 0, slowest = 0;
    for (std::size_t d = 0; d < work.gpus.size() && d < hardware.gpus.size(); ++d) {
        const DeviceWork& w = work.gpus[d];
        if (!busy(w)) continue;
        const GpuDevice& device = hardware.gpus[d];
        const double tflops = matrix_tflops(device);
        if (tflops <= 0 || device.bandwidth_gbps <= 0) return std::nullopt;
        const SpeedClassCoefficients& c = m.of(speed_class(device));
        // The experts no token of the micro-batch runs are not read.
        const double idle = w.expert_bytes * (1 - experts_touched(work.expert_share, batch));
        const double products = prefill_terms(w, work, device, batch, c, m);
        const double scan = w.recurrent_layers * c.prefill_recurrent_s;
        // Converted to FP16 each micro-batch (fp16_gemm_prompt), the weights are read as
        // stored, written at 2 bytes a weight, and read so by the GEMM: one pass over the bytes
        // each, at the share of the bandwidth a micro-batch reads its weights at (r).
        const double held = w.resident_bytes - idle;
        const double fp16 = fp16_gemm_prompt(work, device) ? 2 * held * work.weights_per_byte : 0;
        // MMQ's re-reads of a dense FFN's weights past L2 (mmq_reread_bytes) at their full
        // bandwidth time, stated (SpeedModel::mmq_reread): at r, the DGX Spark's re-reads took r
        // from 0.87 to 0.94, and the 2024 runs' conversion reads, which r also carries, read at
        // 0.71-0.84x their measure left out (#34).
        const double reread = mmq_reread_bytes(w, work, device, batch) * m.mmq_reread;
        const double reads =
            (held + 2 * fp16) / (device.bandwidth_gbps * 1e9) / batch * m.weight_reread +
            reread / (device.bandwidth_gbps * 1e9) / batch +
            activation_bytes(w, work, device, batch) * m.activation_traffic /
                (device.bandwidth_gbps * 1e9);
        const double launches = static_cast<double>(w.layers) * c.prefill_layer_s / batch;
        if (work.tensor_parallel) {
            slowest = std::max(slowest, products + reads + (scan + launches) / at_once);
        } else {
            seconds += products + scan + reads + launches;
        }
    }
    if (work.tensor_parallel && slowest > 0) {
        seconds = slowest + work.reductions * m.meta_prefill_reduce_s;
    }
    if (busy(work.ram) || work.ram.resident_bytes > 0) {
        if (work.host_prefill_on_cpu) return std::nullopt;  // no CPU throughput figure
        // llama.cpp runs RAM-held layers of a large batch on the first GPU, copying their weights
        // over PCIe once per micro-batch.
        const GpuDevice& device = hardware.gpus.front();
        const double tflops = matrix_tflops(device);
        if (tflops <= 0) return std::nullopt;
        const SpeedClassCoefficients& c = m.of(speed_class(device));
        seconds += prefill_terms(work.ram, work, device, batch, c, m) +
                   work.ram.recurrent_layers * c.prefill_recurrent_s +
                   work.ram.resident_bytes / (m.pcie_gbps * 1e9) / batch;
    }
    // The host fills the micro-batch's KQ mask before its graph runs: once, whatever the GPUs.
    seconds += work.mask_cells * m.mask_cell_s;
    if (seconds <= 0) return std::nullopt;
    return seconds;
}

Speed estimate_speed(const Model& model, const Quant& quant, const Placement& placement,
                     const Hardware& hardware, std::uint64_t context, std::uint64_t ubatch,
                     std::uint64_t n_seq, const SpeedModel& m) {
    Speed s;
    s.ubatch = ubatch;
    // llama.cpp keeps token_embd in RAM whatever runs where: only layers or experts there count.
    s.offloaded =
        placement.ram.active_weights > 0 || placement.ram.weights > placement.ram.embedding;
    if (!hardware.gpus.empty()) s.device_class = speed_class(hardware.gpus.front());
    const double empty =
        decode_seconds(speed_work(model, quant, placement, context, kDecodePoint), hardware, m);
    if (empty > 0) s.decode_tokens_per_s = 1.0 / empty;
    const std::uint64_t own = llama_sequence_context(context, n_seq);
    if (own > 1) {
        const double full =
            decode_seconds(speed_work(model, quant, placement, context, {own - 1, 1}), hardware, m);
        if (full > 0) s.decode_at_context = 1.0 / full;
    }
    const auto prefill = prefill_seconds(
        speed_work(model, quant, placement, context, kPrefillPoint), hardware, m, ubatch);
    if (prefill) s.prefill_tokens_per_s = 1.0 / *prefill;
    s.prefill_on_cpu = s.offloaded && !placement.op_offload && !hardware.gpus.empty();
    s.tensor_parallel = placement.tensor_parallel;
    s.cpu_only = hardware.gpus.empty();
    // No band under -sm tensor: the few published pairs measure no error (tensor_decode_note).
    if (s.tensor_parallel) return s;
    if (!s.offloaded && !hardware.gpus.empty()) {
        s.decode_band = speed_band(m, s.device_class, false);
        if (in_band_regime(true, ubatch)) s.prefill_band = speed_band(m, s.device_class, true);
    }
    return s;
}

const char* tensor_decode_note() {
    return "3 published llama-bench pairs of -sm tensor and -sm layer on 2 and 4 RTX 4090s "
           "(llama.cpp#19378: decode 0.77x to 1.30x, prompt 0.44x to 1.42x of the layer split) "
           "and one on 2 RX 7900 XTX under Vulkan (llama.cpp#25051: 1.20x, 1.59x); NVLink and "
           "other GPUs are not measured";
}

}  // namespace canitrun
