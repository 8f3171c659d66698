#pragma once
// The rates a GPU runs a prompt's products and attention at, from its database entry: what
// prefill divides its FLOPs by (speed.hpp). Stated from the hardware and llama.cpp's kernels,
// not fitted.

#include <cstdint>

#include "canitrun/hardware.hpp"

namespace canitrun {

// The matrix throughput prefill divides by, in TFLOPS: the FP16 tensor rate with FP16
// accumulation (the rate llama.cpp's int8 and FP16 kernels run at), or the FP32 rate where that
// is higher (Pascal's FP16 runs at 1/64; M1-M4 have no matrix units).
double matrix_tflops(const GpuDevice& device);
// The rate quantized weights are multiplied at in prefill: a GPU without matrix units that has a
// 4-way int8 dot instruction runs llama.cpp's MMQ kernels on it (GpuDevice::int8_dot_tops: a
// Tesla P40's 47 TOPS beside its 11.76 FP32 TFLOPS, an MI50's 53.6 beside 26.5 FP16); every
// other GPU its matrix_tflops (a P100, without dp4a, dequantizes to FP16 for cuBLAS). On GCN
// (Vega 20: an MI50, MI60, Radeon VII) MMQ's dp4a kernels run Q4_0 and Q4_1 weights at that
// rate, every other type at half of it (`q4_legacy`: a Q4_0 or Q4_1 file).
double quantized_tflops(const GpuDevice& device, bool q4_legacy);
// The rate 16- and 32-bit float weights are multiplied at in prefill: matrix_tflops, but an Intel
// GPU's BF16 weights at its vector engines' FP32 rate, an eighth of its XMX FP16 rate (an
// Xe-core's 256 FP32 FLOP a clock beside 2048: the Arc Pro B70's 22.94 TFLOPS beside 183.5).
// ggml-vulkan builds its BF16 matrix-core pipeline only where the device reports bf16 cooperative
// matrices (coopmat_bf16_support); the B70's BF16 pp512 runs on Mesa ANV
// (kyuz0/intel-b70-ai-toolboxes, b9039) reach 11.9-12.6 TFLOPS at 2 FLOPs a parameter, 52-55 % of
// its FP32 rate and 7 % of its XMX rate, as BF16 on the shaders would. Inferred from the rate, not
// confirmed (the source does not print the device's extensions); at the XMX rate they read
// at 2.9-6.2x their measure with their source left out (Intel's only float runs) and in sample only
// at a float multiplier of 14x (#34: every run's prefill left out 24.5 % -> 23.8 % at the
// median, 94.8 % -> 77.8 % at p90). canitrun plans Intel on Vulkan.
// A GCN GPU's (Vega 20: an MI50) BF16 weights at its FP32 rate, half its packed FP16 rate: it
// has no BF16 arithmetic, and llama.cpp hands a BF16 prompt product to hipBLAS as a BF16 GEMM
// (ggml_cuda_op_mul_mat_cublas at ggml-org/ggml 9d4cf829, the MI50 runs' b5890: supports_bf16
// for every AMD GPU, CUDA_R_16BF in, CUBLAS_COMPUTE_32F; ggml_cuda_mul_mat_cublas at d99724f2
// still, MMF's BF16 path needing WMMA or MFMA), for which rocBLAS ships no Vega 20 kernels:
// its Tensile logic holds vega20 HB, HHS, HSS and SB GEMMs but no BBS, so the generic "hip"
// fallback (hip_Cijk_Alik_Bljk_BBS_BH.yaml, KernelLanguage: Source, BF16 widened to FP32 and
// accumulated in FP32; ROCm/rocBLAS b520bc83) runs them.
double float_tflops(const GpuDevice& device, bool bf16);
// A class's own unpacking cost u is ALU work: the shaders run it, not the memory. It is fitted
// in bytes of read time per weight on a device of kUnpackFlopsPerByte FP32 FLOPs per byte of
// bandwidth; a device whose FP32 shader rate is stored (Gpu::fp32_tflops: the GPUs without
// matrix units, Apple M1-M4 and Pascal) pays it scaled by kUnpackFlopsPerByte / its own ratio,
// as the same bandwidth fed by fewer shader cores unpacks more slowly (an M1 Max's 10.4 TFLOPS
// on 400 GB/s, 26 FLOPs a byte, pays 1.23x; an M3 Max's 14.13 on 400, 35, pays 0.91x). Every
// other device, whose stored rate is its matrix units', pays it as is. 32 is about the middle
// of Apple's line (26 for an M1 Max to 38 for an M1). #34: with u in bytes of read time on every
// device, Apple's decode missed by 18.5 % at the median with each source left out; so scaled,
// by 14.2 % (every run's 12.3 % -> 12.0 %, p90 45.8 % unchanged).
inline constexpr double kUnpackFlopsPerByte = 32;
double unpack_scale(const GpuDevice& device);
// The rate prompt attention (flash attention at a depth) runs at: matrix_tflops, but on RDNA4
// the shaders' packed FP16 rate, half its WMMA rate (AMD: the R9700's vector 'Peak Half
// Precision' 95.7 TFLOPS beside 191.4 of WMMA; data/gpus/amd.json). On AMD GPUs
// ggml_cuda_get_best_fattn_kernel runs the TILE kernel (FP16 on the shaders) wherever no MMA
// path exists; RDNA4 had none before llama.cpp#18481 (January 2026), and every RDNA4 run in the
// data predates it (kyuz0's R9700, b7423). On RDNA3 and RDNA3.5 the WMMA rate is the shaders'
// dual-issue FP16 rate, so their figure stands. With the matrix rate, the R9700's prompts 16384
// and 32768 tokens deep read at 1.8-2.0x their prediction, its source left out (#34): the RX 7900
// XTX that then carries AMD's attention multiplier has 0.64x the R9700's WMMA rate and 1.28x its
// shader rate. Today's RDNA4 MMA path (head size up to 128) is not measured: not modelled.
// On a GeForce RTX card, matrix_tflops / 1.5: llama.cpp accumulates KQ (half of attention's
// FLOPs where the K and V heads are as wide) in FP32, which GeForce runs at half its FP16-
// accumulate rate (the stored fp16_tflops, data/gpus/nvidia.json), and KQV in FP16 at the full
// rate: with flash attention the CUDA MMA kernel's KQ accumulator tile is float and its VKQ one
// half2 (fattn-mma-f16.cuh mma_tile_sizes: T_C_KQ tile<16, 16, float>, T_C_VKQ tile<16, 8,
// half2>; ggml-org/llama.cpp 01c68426), without it llama-graph.cpp sets KQ's mul_mat to
// GGML_PREC_F32 for every model ("we default to F32 here"; cuBLAS CUBLAS_COMPUTE_32F) and KQV
// keeps the default FP16 compute. Workstation, datacenter and GB10 cards accumulate FP32 at the
// full rate.
inline constexpr double kGeforceAttentionSlowdown = 1.5;
double attention_tflops(const GpuDevice& device);
// Whether a device's flash attention skips a block of cached cells that the mask hides from every
// query of the block (DeviceWork::masked_attention_flops). Metal does: kernel_flash_attn_ext_blk
// marks them and the kernel passes over them (llama.cpp#16372, October 2025; "0 - masked (i.e.
// full of -INF, skip)", ggml-metal.metal at ggml-org/ggml 30a0c4c9). CUDA and HIP do not: they
// trim only the cells past a query block's last unmasked one (flash_attn_mask_to_KV_max,
// ggml-cuda/fattn-common.cuh at the same commit), and a sliding cache that has wrapped holds a
// query's cells anywhere; Vulkan's shader loads every mask tile (flash_attn.comp).
bool attention_skips_masked_cells(const GpuDevice& device);
// Attention heads up to this wide run at a device's attention rate; a wider head (Gemma 4's
// 512-wide global heads, an absorbed MLA latent's 576) may not (wide_head_attention_slowdown).
inline constexpr std::uint64_t kNarrowHeadDim = 256;
// How many times its FLOPs' time at attention_tflops a layer of heads wider than kNarrowHeadDim
// takes: 10 on an Intel GPU, 1 elsewhere. canitrun plans Intel on Vulkan, whose flash attention
// on Xe2 under Mesa runs such heads far below its rate for narrower ones. llama.cpp#27638
// (stornic56, 2026-09-08, an Arc B580 on Mesa ANV, -fa 1, one session) times prompts of 2k, 4k
// and 8k tokens: each doubling takes 2.69x and 3.03x the time for Llama 3.1 8B (heads of 128),
// 3.25x and 3.61x for Gemma 4 E4B (7 global layers of 512-wide heads; its sliding layers' cost
// does not grow past the window). A prompt of n tokens taking a n + b n^2, the first ratio
// puts the growing attention's time at 0.53 and 1.67 of the rest at 2k (each then predicts its
// second ratio: 3.03 and 3.54). Their FLOPs a token at 1024 positions on average: Llama's 32
// layers of 32 heads x 128, 0.54 GFLOP, beside 15.0 of weights; E4B's 7 of 8 heads x 512, 0.117
// GFLOP, beside 10.4 (model_flops, per-layer embeddings out): a 512-wide attention FLOP took
// 10.0x a 128-wide one's time (Gemma 3 4B's 5 full layers of 256-wide heads, 2.15x and 2.26x:
// 1.1x). Derived: the files' types and the build not given, each model's other time taken as
// its weights' FLOPs at one rate. kyuz0's Arc Pro B70 runs (b9039, Mesa, not used for the
// figure) read the same: 143-146 GFLOPS for Gemma 4's 512-wide layers 16384 deep, 2.2-2.9 TFLOPS
// for heads of 64-256 (16-19x). Why, not confirmed: ggml-vulkan's scalar flash_attn.comp keeps
// Of[Br / row_split][HSV / D_split / 4] vec4 accumulators a thread, on Intel Br 8, row_split 4,
// D_split 8 (get_fa_tuning_params_scalar at ggml-org/ggml 0ce7ad34): 2 x 16 at head 512, twice
// head 256's, where Xe2's register file spills. llama.cpp#24406's Xe flash-attention kernels
// (September 2026) take heads of 64, 96 and 128 only.
inline constexpr double kIntelWideHeadAttentionSlowdown = 10;
double wide_head_attention_slowdown(const GpuDevice& device);
// The share of its matrix rate a GPU sustains through a prompt: min(1, its board power / the
// power its peak matrix rate needs, 1.2 W a TFLOPS: speed.cpp). A card whose matrix rate
// outgrows its power budget lowers its clock under sustained matrix work: the RTX 6000 Ada (142
// SMs of AD102, 364.25 TFLOPS, 300 W) reads llama-3.1-8b's prompt at 0.71x the RTX 4090's (128
// SMs, 330.4 at full FP16-accumulate rate, 450 W) as FP16 and 0.81x as Q4_K_M (XiongjieDai,
// May 2024), where the rates say 1.10x. Prompt products and attention run at it; a decode, bound
// by memory, does not. A GPU without a board power in data/gpus runs at its full rate. The
// datacenter cards the fit uses have theirs since their 2024 quantized prompts read as FP16
// GEMMs (fp16_gemm_prompt): an H100 PCIe (756.5 TFLOPS, 350 W) sustains 39 % of its rate, an
// A100 PCIe (312, 300 W) 80 %, an L40S (362.05, 350 W) 81 %; XiongjieDai's H100 PCIe llama-3-8b
// F16 prompt reaches 162 TFLOPS, 21 % of the full rate (#34).
double sustained_clock_share(const GpuDevice& device);

}  // namespace canitrun
