#include "canitrun/speed_rates.hpp"

#include <algorithm>
#include <string>

#include "canitrun/gpu.hpp"

namespace canitrun {

// The database stores a GeForce RTX card's FP16 tensor rate with FP32 accumulation, which
// GeForce runs at half the FP16-accumulate rate (NVIDIA's Turing, Ampere, Ada and RTX Blackwell
// whitepapers; each entry's notes); workstation, datacenter and GB10 entries store the full
// rate. llama.cpp's kernels accumulate int8 in int32 and FP16 in FP16 (cuBLAS CUBLAS_COMPUTE_16F)
// at the full rate on every card, so a GeForce RTX card's rate is twice its stored figure: the
// RTX 4090's 165.2 becomes 330.4, beside the RTX 6000 Ada's 364.25 on the same AD102 die.
namespace {

bool geforce_rtx(const GpuDevice& device) {
    return device.gpu != nullptr && device.gpu->vendor == "nvidia" &&
           device.gpu->name.find("GeForce RTX") != std::string::npos;
}

}  // namespace

double matrix_tflops(const GpuDevice& device) {
    const double fp16 = device.fp16_tflops * (geforce_rtx(device) ? 2 : 1);
    return std::max(fp16, device.fp32_tflops);
}

double quantized_tflops(const GpuDevice& device, bool q4_legacy) {
    if (device.int8_dot_tops <= 0) return matrix_tflops(device);
    // GCN's MMQ (ggml_cuda_should_use_mmq keeps a GPU neither CDNA nor with WMMA on MMQ at
    // every batch size): on Vega 20 "Q4_0 or Q4_1 quants ... as it is almost twice much compute
    // available" (llama.cpp#11931, test-backend-ops MUL_MAT on an MI60, b4735). kyuz0's 2x MI50
    // reads qwen3-14b's prompt at 570.15 t/s as Q4_0 and 286.58 as Q4_K_S (mi50-gfx906-toolboxes,
    // 982e3472): the other types' products at half the rate.
    constexpr double kGcnOtherTypesShare = 0.5;
    if (!q4_legacy && device.gpu != nullptr && device.gpu->architecture.starts_with("GCN"))
        return device.int8_dot_tops * kGcnOtherTypesShare;
    return device.int8_dot_tops;
}

double float_tflops(const GpuDevice& device, bool bf16) {
    // An Xe-core's XMX engines do 2048 FP16 FLOP a clock, its vector engines 256 FP32 FLOP
    // (data/gpus/intel.json notes: the Arc Pro B70's 183.5 and 22.94 TFLOPS).
    constexpr double kIntelVectorShare = 256.0 / 2048.0;
    if (bf16 && device.gpu != nullptr && device.gpu->vendor == "intel")
        return matrix_tflops(device) * kIntelVectorShare;
    // Vega 20 does an FP32 FMA a lane a clock and two packed FP16 ones (AMD: an MI50's 13.3
    // FP32 TFLOPS beside 26.5 FP16), and has no BF16 instruction.
    constexpr double kGcnFp32Share = 0.5;
    if (bf16 && device.gpu != nullptr && device.gpu->vendor == "amd" &&
        device.gpu->architecture.starts_with("GCN"))
        return matrix_tflops(device) * kGcnFp32Share;
    return matrix_tflops(device);
}

double unpack_scale(const GpuDevice& device) {
    if (device.fp32_tflops <= 0 || device.bandwidth_gbps <= 0) return 1;
    const double flops_per_byte = device.fp32_tflops * 1e12 / (device.bandwidth_gbps * 1e9);
    return kUnpackFlopsPerByte / flops_per_byte;
}

double attention_tflops(const GpuDevice& device) {
    const double matrix = matrix_tflops(device);
    if (device.gpu != nullptr && device.gpu->vendor == "amd" && device.gpu->architecture == "RDNA4")
        return matrix / 2;
    // KQ, half of attention's FLOPs, accumulates in FP32 (the stored GeForce figure, half the
    // FP16-accumulate rate), KQV in FP16: 1 / (0.5 / (R / 2) + 0.5 / R) = R / 1.5.
    if (geforce_rtx(device)) return matrix / kGeforceAttentionSlowdown;
    return matrix;
}

bool attention_skips_masked_cells(const GpuDevice& device) {
    return device.gpu != nullptr && device.gpu->vendor == "apple";
}

double wide_head_attention_slowdown(const GpuDevice& device) {
    return device.gpu != nullptr && device.gpu->vendor == "intel" ? kIntelWideHeadAttentionSlowdown
                                                                  : 1;
}

// The watts a TFLOPS of matrix rate draws at full clock: the one of 1.2, 1.35 and 1.5 that gave
// prefill its lowest error left out (docs/SPEED.md).
constexpr double kWattsPerMatrixTflops = 1.2;

double sustained_clock_share(const GpuDevice& device) {
    if (device.gpu == nullptr || device.gpu->board_power_w <= 0) return 1;
    const double needed = matrix_tflops(device) * kWattsPerMatrixTflops;
    return needed > 0 ? std::min(1.0, device.gpu->board_power_w / needed) : 1;
}

}  // namespace canitrun
