#pragma once
// How fast a placement runs: a small model of llama.cpp's decode and prefill whose coefficients
// are fitted to published llama-bench measurements (validation/llama-bench.json) by
// tools/speed/fit_speed, with the error each device class showed on them (docs/SPEED.md).
//
// Decode (one token) runs the layers one after another, so its time is the sum over devices of
//   read bytes / bandwidth x a   (a = 1 / the share of peak bandwidth reached)
// + layers x (k [+ ko before 2025] [+ kg, kh: CUDA's graph check, ROCm without HIP graphs])
//   (a MoE layer pays kg kMoeLayerGraphNodes times: its graph holds more nodes)
// + MoE layers x m  (kernel launches, routing)
// + recurrent layers x kr x 1 TB/s / bandwidth  (the recurrent scan's kernels, which read and
//                                                write the state more than once: scaled by the
//                                                device's memory, so a base M4 pays 8x a 4090)
// + weights read / bandwidth x (d[type] + u)  (unpacking: per weight, not per byte, so a 2-bit
//                                        type costs as much work as a 4-bit one; d is the bytes
//                                        of read time a weight's unpacking costs, the ALUs that do
//                                        it scaling with the memory they are built to keep up
//                                        with; u, per group, what a class's kernels add to it
//                                        for any quantized type, 0 for float weights,
//                                        scaled by the device's ALU rate: unpack_scale)
// + (GPUs - 1) x h               (the hand-over between devices of a layer split)
// + cached positions read x 23 ns on an Xe2 GPU (kv_position_seconds: stated, not fitted)
// where an Apple chip's a is its own (ac, per generation and tier: M1, M1 Pro, M1 Max, M1 Ultra
// ... M5 Ultra), pinned towards the a of every Apple run: the same nominal bandwidth is not the
// same share reached (an M1 Max decodes llama-3.1-8b Q4_K_M at 35.7 t/s where an M3 Max of the
// same 400 GB/s does 49.0, and a base M1 reaches a larger share than an M1 Max; XiongjieDai).
// where the read bytes are the active weights (routed experts at top-k over experts) and the KV
// cache up to the current depth. Layers in system RAM read at RAM bandwidth x its efficiency.
// Prefill (per prompt token, in micro-batches of ubatch tokens) is
//   (dense + expert FLOPs) / rate x (p + e[type] [+ o before 2025]) + expert FLOPs / rate x pe
// + 2 x routed expert weights held x touched / rate / ubatch x x
// + lone expert products x (a float expert's FP16 read time x g + gc) / ubatch
// + attention FLOPs / rate x t + recurrent layers x qr
// + (resident weights - idle experts') / bandwidth / ubatch x r  (each micro-batch reads every
//                                        weight it runs once: touched = experts_touched)
// + layers x q / ubatch
// + activation bytes / bandwidth  (F32 tensors past L2: activation_bytes, stated)
// + KQ mask cells x km  (once a token, on the host: SpeedWork::mask_cells)
// on each GPU, where dense FLOPs are 2 per active non-expert parameter plus attention at the
// depth, expert FLOPs 2 per active routed-expert parameter, and the rate the device's matrix
// throughput (matrix_tflops); quantized weights' products at the rate they are multiplied at
// (quantized_tflops: dp4a on a GPU without matrix units). At 512 tokens a micro-batch each of
// 128 experts sees about 32: the expert products cost per expert weight per micro-batch (x), not
// per token. Weights held in RAM cross PCIe once per micro-batch. p differs for float (FP16/BF16)
// and quantized weights. a, k, kr, u, p, q, qr, t, x, pe are per coefficient group (speed_group:
// device classes whose cards share their chips share them); m, h, r, d, e, o, ko and km are shared
// by every device. A group no run measures for a term (no MoE run, no hybrid) takes the value
// fitted over every device. A published run's weights are read at its file's printed size
// (BenchRun::file_bytes).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/hardware.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/model.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/speed_rates.hpp"

namespace canitrun {

// Devices that share a speed behaviour (and a measured error band).
enum class SpeedClass {
    nvidia,              // NVIDIA GeForce cards
    nvidia_workstation,  // RTX A6000, RTX 6000 Ada, RTX PRO 6000 ...: FP16 with FP32 accumulate
                         // at the full rate GeForce halves, so the same work at a higher figure
    nvidia_datacenter,   // A100, H100, H200, B200, L40S, ...
    nvidia_unified,      // DGX Spark (GB10), Jetson: NVIDIA with LPDDR shared memory
    amd,                 // Radeon and Instinct discrete cards
    amd_apu,             // Ryzen AI Max (Strix Halo) and other AMD unified memory
    apple,               // Apple silicon (Metal)
    intel,               // Arc
    // Discrete GPUs without matrix units (NVIDIA Pascal, AMD Vega 20 / gfx906: their
    // entries in data/gpus note "no tensor cores" / "no matrix cores"): llama.cpp runs them on
    // shader kernels that reach a smaller share of their HBM2 (tesla-p100, mi50 runs)
    no_matrix_units,
    // Radeon RX 6000 / PRO W6000 (RDNA2: "no matrix units" in data/gpus): AMD's coefficients (the
    // same ROCm kernels on GDDR6), a band of their own. In `amd` until #34, its one ROCm prompt
    // run (an RX 6700 XT, llama.cpp#5835: 0.63x its prediction left out) was a fifth of the
    // weight AMD's band is a quantile over, and set it (± 60 %) for RDNA3 and RDNA4 cards
    // (WMMA), whose left-out runs it then held 89 % of.
    amd_no_matrix_units,
    // NVIDIA Volta (Tesla V100): FP16 tensor cores without the int8 ones MMQ's matrix path
    // needs, so llama.cpp multiplies a quantized prompt of 64 tokens or more as an FP16 cuBLAS
    // GEMM on weights dequantized each micro-batch (ggml_cuda_should_use_mmq: an NVIDIA GPU
    // without turing_mma_available stays on MMQ only below MMQ_DP4A_MAX_BATCH_SIZE), where an
    // A100, H100 or L40S runs MMQ on int8 tensor cores: prefill coefficients of its own, the
    // datacenter group's decode ones (speed_group; #34).
    nvidia_volta,
    unknown,  // a --vram budget or an unrecognised device: NVIDIA consumer figures
};
inline constexpr int kSpeedClassCount = 12;

SpeedClass speed_class(const GpuDevice& device);
// The class whose fitted coefficients a class uses: GeForce, workstation and unified NVIDIA
// (DGX Spark) cards are built from the same chips (AD102 is both the RTX 4090 and the RTX 6000
// Ada, GB202 the RTX 5090 and the RTX PRO 6000) and run the same kernels, so they share one set
// and differ only in their bandwidth and matrix rate; `unknown` uses theirs too. Datacenter
// cards (HBM: V100 ... H200, and the L40S) keep a set of their own: llama.cpp's MMQ reaches a
// smaller share of an A100's or H100's tensor rate than of a GeForce card's, and its mat-vec
// kernels a smaller share of HBM bandwidth with a larger cost per layer: with their decode
// fitted on the GeForce set, kyuz0's 22 V100 decode runs missed by 36 % at the median, their
// source left out (10 % with a set of their own), and all NVIDIA runs by 16 % (12 %). The error
// bands stay per class. A V100 (nvidia_volta) decodes on the datacenter group's coefficients (the
// same mat-vec kernels on HBM) but reads a prompt on its own (its quantized products on cuBLAS,
// not MMQ): in the datacenter group, its 2026 MoE runs and XiongjieDai's 2024 dense A40, A100,
// H100 and L40S ones, the group's only sources, each set the group's prompt terms when the other
// was left out (llama-3.1-70b Q4_K_M pp512 at 2.3-8.9x its measure, the group's prefill 43 % /
// 227 % at the median / p90; 21 % / 50 % apart, every run's 22.3 % / 66.1 % -> 21.8 % / 57.6 %).
// A prefill coefficient of a class whose decode group is another's, which no run of its own
// measures, is fitted at that group's value (tools/speed/fit_speed.cpp parent_pins).
SpeedClass speed_group(SpeedClass c, bool prefill);
const char* speed_class_name(SpeedClass c);   // "nvidia_datacenter"
const char* speed_class_words(SpeedClass c);  // "NVIDIA datacenter GPUs"

// Weight types by how their weights are unpacked: plain floats, the legacy block types (Q4_0,
// Q5_1, Q8_0 ...), k-quants (Q2_K ... Q6_K), i-quants and ternary types (IQ2_XXS ... IQ4_NL,
// TQ1_0) with their lookup grids, and the 4-bit float types (MXFP4, NVFP4).
enum class QuantFamily { floating, legacy, k_quant, i_quant, fp4 };
inline constexpr int kQuantFamilyCount = 5;

// Apple silicon chips by generation (M1 ... M5, Gpu::architecture "Apple M3") and tier (base,
// Pro, Max, Ultra, from the name): 1 + (generation - 1) x 4 + tier, 1 to kAppleChips; 0 for any
// other device or a chip the model does not know (an M6).
inline constexpr int kAppleGenerations = 5;
inline constexpr int kAppleChips = kAppleGenerations * 4;
int apple_chip(const GpuDevice& device);
// The type a quantization's weights were written as: a GGUF file's own (Quant::file_type, its
// id being "GGUF file"), else the database quantization's id. quant_family and the speed work's
// per-type rates read it, so a file decodes and prefills as the database's type of that name.
const std::string& written_type(const Quant& quant);
QuantFamily quant_family(const Quant& quant);
const char* quant_family_name(QuantFamily f);

// Per device class, the same within a group (speed_group). Times in seconds; `bandwidth`,
// `compute` and `attention` are multipliers on the ideal time (1 / the share of peak reached).
struct SpeedClassCoefficients {
    double bandwidth = 1 / 0.7;    // a
    double layer_s = 0;            // k: decode seconds per layer
    double recurrent_layer_s = 0;  // kr: decode seconds per recurrent layer at 1 TB/s, on top of k
    // u: decode, bytes of read time per quantized weight on top of the shared d[type]: a class's
    // mat-vec kernels unpack at their own pace (an Arc Pro B70 on Vulkan decodes BF16 at 83-87 %
    // of its bandwidth, Q4_K_M at 22-42 %), which one d for every device cannot say.
    double quantized_unpack = 0;
    double compute = 1 / 0.5;        // p: quantized weights (dequantized, or int8 dot products)
    double compute_float = 1 / 0.5;  // p for 16- and 32-bit float weights (plain GEMM)
    double prefill_layer_s = 0;      // q: prefill seconds per layer per micro-batch
    double attention = 1;            // t: multiplier on the attention products' ideal FLOP time
    // x: the tokens' worth of work each micro-batch does per routed expert weight whatever the
    // tokens routed to it (llama.cpp's MMQ pads each expert's few tokens to a whole tile)
    double expert_compute = 0;
    // pe: added to p for the routed experts' own FLOPs (a token's work, not a micro-batch's):
    // mul_mat_id multiplies each expert's share of the micro-batch (ubatch x top_k / experts
    // tokens: 16 of 512 for 256 experts choosing 8) in tiles sized to that share, which reach a
    // smaller part of the matrix rate than a dense product of the whole micro-batch. With x
    // alone, a MoE prompt's cost a micro-batch was all padding, and one read at 2048-8192
    // tokens a micro-batch ran 1.6-2.5x faster than measured (RTX 5090, V100; #34).
    double expert_flop = 0;
    double prefill_recurrent_s = 0;  // qr: prefill seconds per prompt token per recurrent layer
    // Per class: the fold error max(predicted / measured, measured / predicted) - 1 that the
    // class's runs stayed within when their source was left out of the fit, for 80 % of them
    // with each source's runs weighing one in all (a band is judged on sources it did not see),
    // and how many such runs there were (a band needs kMinBandRuns).
    double decode_band = 0, prefill_band = 0;
    std::uint64_t decode_rows = 0, prefill_rows = 0;
};

// Fewer left-out runs than this in a class and regime: no measured band, none borrowed.
inline constexpr std::uint64_t kMinBandRuns = 10;
// The published CPU pp512 runs SpeedModel::cpu_prefill_efficiency is the median of.
inline constexpr std::uint64_t kCpuPrefillRuns = 5;
// Prompts read in micro-batches of fewer tokens than this are a regime of their own (sweeps: the
// batch leaves MoE experts idle, its fixed costs weigh more a token): kept in the data, neither
// fitted nor banded, and shown no band (#34: fitted, the RTX 4090's 16-64-token Qwen3-30B-A3B runs
// moved GeForce's coefficients until its 512-token band went from ± 77 % to within 2.0×).
inline constexpr std::uint64_t kMinBandUbatch = 128;
// Whether a run (prefill, at `ubatch` tokens a micro-batch) is in the regime fitted and banded.
inline bool in_band_regime(bool prefill, std::uint64_t ubatch) {
    return !prefill || ubatch >= kMinBandUbatch;
}

// How the printed bands of one kind ("± N %" below 100 %, "within N×" from there) held on runs
// whose source neither the fit nor the band saw (docs/SPEED.md): the share of such runs within
// the band their class would print without them, and how many runs that is.
struct BandCoverage {
    double share = 0;
    std::uint64_t runs = 0;
};

// The fit's error leaving one source out: median and 90th percentile of |predicted / measured -
// 1| over every fitted run.
struct OutOfSampleError {
    double decode_median = 0, decode_p90 = 0, prefill_median = 0, prefill_p90 = 0;
};

struct SpeedModel {
    SpeedClassCoefficients classes[kSpeedClassCount];
    double moe_layer_s = 0;                          // m
    double gpu_hop_s = 0;                            // h
    double weight_reread = 1;                        // r
    double dequant[kQuantFamilyCount] = {};          // d: decode, bytes of read time per weight
    double dequant_prefill[kQuantFamilyCount] = {};  // e: prefill, added to p
    // uf: decode, bytes of read time per weight an Intel GPU adds to a 4-bit float (MXFP4)
    // weight on top of its group's u: ggml-vulkan's mat-vec loads its 17-byte blocks a byte at a
    // time and looks each value up (intel_fp4_unpack in speed.cpp, #34). Only published runs.
    double intel_fp4_unpack = 0;
    // ac: an Apple chip's decode bandwidth multiplier a (apple_chip - 1); 0: the class's a. A chip
    // no run measures is fitted at the a of every Apple run, which the class's a also holds.
    double apple_bandwidth[kAppleChips] = {};
    // o: prefill, added to p for llama.cpp built before 2025 (only published runs have it: an
    // estimate is for today's llama.cpp).
    double older_build_compute = 0;
    // ko: decode, seconds per layer added for llama.cpp built before 2025 (per-layer launch
    // time later builds took out, fitted on the 2024 runs): only published runs have it.
    double older_build_layer_s = 0;
    // kg: decode, seconds per layer added for llama.cpp's CUDA backend from llama.cpp#19165 to
    // #21472 (BenchRun::graph_node_check): each token's CUDA graph check walked every node
    // through a std::unordered_set on the CPU while the GPU waited; a MoE layer, of more nodes,
    // pays it kMoeLayerGraphNodes times. Only published runs have it.
    double graph_check_layer_s = 0;
    // kh: decode, seconds per layer added for llama.cpp's ROCm backend before llama.cpp#22254
    // (BenchRun::hip_no_graphs), which launched each token's kernels one at a time from the host
    // where later builds replay a HIP graph (#22254's own runs: 12-42 us a layer saved, gpt-oss
    // 3). One cost for every layer kind: a MoE layer at 38.6 / 26.8 of a dense one's (the CUDA
    // kernel counts of Pessimist228's nsys profile of Qwen 3.5) read gpt-oss, which gained 1 %
    // from graphs, slower still (#34). Only published runs have it.
    double hip_launch_layer_s = 0;
    // g: prefill, the expert products llama.cpp runs one expert at a time (lone_expert_products)
    // cost g x their weights' FP16 read time each micro-batch (one BLAS call per expert of a
    // few tokens each). Shared, in the device's read time: fitted per group as seconds a call
    // (12.6 us on a V100, 27 on an R9700, 50 on a Ryzen AI Max, with the V100's quantized
    // experts counted), a group whose one source is left out took another platform's.
    double lone_expert_read = 0;
    // gc: prefill, seconds each expert product run one at a time costs a micro-batch
    // (lone_expert_products), on top of a float expert's read (g): ggml_cuda_mul_mat_id's host
    // loop launches one ggml_cuda_mul_mat per expert and product, each its own kernels (a
    // quantized product's rows quantized to q8_1, then MMQ on the expert's few tokens, whose
    // weights the micro-batch's read r already counts), so a model of many small experts pays
    // per call, not per weight (a V100's gpt-oss-20b, 32 experts of 8.3 M weights, read at
    // 0.52x its measure left out with g on its quantized calls; #34). Shared: 9.9 us.
    double lone_expert_call_s = 0;
    // gs: prefill, seconds of host time each product run one expert at a time
    // (lone_expert_products) costs per routed expert, prompt token and expert slot: before it
    // launches a call, ggml_cuda_mul_mat_id sorts the micro-batch's tokens by expert on the CPU,
    // a loop over every expert, every token and every slot of the token's top-k ("for i02 < ne02
    // ... for i12 < ne12 ... for iex < n_expert_used", ggml-cuda.cu at ggml-org/ggml 43419ff0,
    // the V100 runs' b9368), between two cudaStreamSynchronize: the GPU waits. Per token, not
    // per micro-batch: Qwen3.5/3.6-35B-A3B's 256 experts at top-8 loop 2048 times a token and
    // product, gpt-oss-20b's 32 at top-4 128 times, so a larger -ub does not spread it (a 2x
    // V100's Qwen3.6-35B-A3B Q4_K_M reads 804 t/s at pp512 and 837 at -ub 2048 32768 deep).
    // TheTom/llama-cpp-turboquant#322 times the same loop and syncs at ~9.5 % of a Qwen3 MoE
    // prompt at -ub 512 and ~24.8 % at 2048 (gfx1100).
    double lone_expert_sort_s = 0;
    // km: prefill, seconds each KQ mask cell costs on the host (SpeedWork::mask_cells), shared:
    // the host's loop, not any device's kernels, and fitted, as no run times it alone.
    double mask_cell_s = 0;
    // Not fitted (no measurement offloads): stated assumptions.
    double ram_bandwidth_efficiency = 0.6;  // dual-channel desktops measure 55-65 % in llama-bench
    double pcie_gbps = 25.0;  // PCIe 4.0 x16 as measured by bandwidthTest (~25 of 32 GB/s)
    // A CPU-only plan's prompt: the share of the CPU's int8 rate (cpu_int8_tops) its matrix
    // products reach, the median of the kCpuPrefillRuns published CPU pp512 runs in
    // validation/llama-bench.json (backend CPU, each with its CPU's cores, vector width and
    // clock, sourced in the row's `cpu`): 0.229, a Ryzen Threadripper PRO 5975WX's Llama 3.1 8B
    // Q4_0 (ikawrakow/ik_llama.cpp#54, mainline llama.cpp of 2024-09). The five, read with this
    // model's FLOPs: 0.160 and 0.183 (Ryzen 9 7950X, Q4_0 and Q8_0, 2024-09), 0.229 and 0.267
    // (5975WX, Q4_0 and Q8_0, 2024-09), 0.255 (Core i5-4278U, Llama 3.2 3B Q4_K_M, b10334;
    // geerlingguy/ai-benchmarks#53). Not in the fitted model (tools/speed): fewer than
    // kMinBandRuns, so no measured band (tests/validation_data_test.cpp recomputes the median).
    // Float weights have no CPU run: their prompt is not estimated.
    double cpu_prefill_efficiency = 0.229;
    // --split-mode tensor: seconds each all-reduce of a partial sum adds to a decoded token
    // (two a layer: the attention's or mixer's output and the FFN's down product). The median
    // of the published -sm tensor / -sm layer pairs of validation/split-modes.json, each read
    // as (1 / tensor t/s - 1 / (GPUs x layer t/s)) / (2 x layers): 51.4, 58.0 and 72.4 us on
    // 2 and 4 RTX 4090s (CUDA, PCIe), no other GPU or link measured (tensor_decode_note).
    double meta_reduce_s = 58.0e-6;
    // --split-mode tensor, prefill: seconds the same two reductions a layer add to each prompt
    // token of a 512-token micro-batch (the partial sums are hidden x ubatch f32, so their cost
    // grows with the batch). The median of the same pairs' pp512 rows, each read by the decode
    // rule as (1 / tensor t/s - 1 / (GPUs x layer t/s)) / (2 x layers): 1.49, 1.64 and 13.29 us
    // (llama 1B, gpt-oss 120B, GLM-4.5-Air on 2 and 4 RTX 4090s, CUDA, PCIe).
    double meta_prefill_reduce_s = 1.6418e-6;
    // Decode on an Xe2 (Battlemage) GPU: seconds each cached position costs each attention layer
    // that reads it, on top of its bytes' read time (kv_position_seconds). Not fitted: every
    // deep Intel run in the data is one source's, so a fitted term would be 0 whenever that
    // source is left out.
    double xe2_kv_position_s = 23e-9;
    // Stated, not fitted: MMQ's re-reads of a dense FFN past L2 (mmq_reread_bytes) take their
    // bytes' full bandwidth time (prefill_seconds); 0 leaves them out.
    double mmq_reread = 1;
    // Stated, not fitted: activation_bytes at their full bandwidth time; 0 leaves them out.
    double activation_traffic = 1;
    std::string source;  // what the coefficients were fitted on
    BandCoverage narrow_bands, wide_bands;
    OutOfSampleError out_of_sample;

    // A class's coefficients (its group's: the fit writes the same values into every class of
    // a group) and its own bands.
    const SpeedClassCoefficients& of(SpeedClass c) const { return classes[static_cast<int>(c)]; }
};

// The measured band of a class for decode or prefill; empty below kMinBandRuns left-out runs.
std::optional<double> speed_band(const SpeedModel& m, SpeedClass c, bool prefill);

// Decode seconds a cached position adds to each attention layer that reads it, beyond its bytes'
// read time: m.xe2_kv_position_s on an Xe2 (Battlemage) GPU, 0 on any other. On an Arc Pro B70
// "token-generation speed collapses with context depth far beyond what KV-cache bandwidth can
// explain", "a near-constant ~21-25 ns per KV position per full-attention layer per token" on
// Vulkan (Mesa ANV) and SYCL alike, at builds b8183 and b10235, for KV rows of 1 KiB to 8 KiB
// ("byte-independence rules out DRAM bandwidth": attention mat-vecs with too few loads in flight
// to cover GDDR6's latency; llama.cpp#26581); a second B70 there measured 0.49 us a position over
// 16 full-attention layers (31 ns each, SYCL b10450). 23 ns, the middle of the first range; taken
// for every Xe2 GPU (the same memory system), measured on the B70 alone. Added to the read time,
// not the larger of the two: the fit is linear in its coefficients (the B70's runs in the
// data read KV rows of up to 16 KiB a position and layer). Without it, kyuz0's B70 decodes 16384
// tokens deep (b9039, Vulkan) read at 1.1-2.5x their measure, their source left out (#34).
double kv_position_seconds(const GpuDevice& device, const SpeedModel& m);

// The coefficients fitted by tools/speed/fit_speed (src/core/plan/speed_fit.cpp).
const SpeedModel& fitted_speed_model();

// What one token asks of one device.
struct DeviceWork {
    double read_bytes = 0;       // decode: active weights here + their KV up to the depth
    double resident_bytes = 0;   // prefill: weights held here, read once per micro-batch
    double dense_flops = 0;      // 2 x active non-expert params here
    double attention_flops = 0;  // the attention products against the cached positions
    double expert_flops = 0;     // 2 x active routed-expert params here
    std::uint64_t layers = 0;
    std::uint64_t moe_layers = 0;
    double recurrent_layers = 0;  // of `layers`: recurrent ones (linear attention, SSM, conv)
    double weight_count = 0;      // active weights read for one token, in weights (not bytes)
    double expert_weights = 0;    // every routed expert's weights held here, in weights
    double expert_bytes = 0;      // of resident_bytes, the routed experts'
    double cache_bytes = 0;       // of read_bytes, the KV cache's (latent_readers)
    // Decode: the cached positions the attention layers here read for one token, summed over
    // those layers (a sliding layer's at most its window; kv_position_seconds).
    double cache_positions = 0;
    // Prefill: the attention products against a sliding-window cache's masked cells, which
    // attention_skips_masked_cells says which devices run (ModelFlops::masked_attention).
    double masked_attention_flops = 0;
    double dense_ffn_layers = 0;  // layers here with a dense FFN (mmq_reread_bytes)
    // Prefill: of attention_flops, the layers' whose heads are wider than kNarrowHeadDim
    // (Gemma 4's 512-wide global heads, an absorbed MLA latent), which some devices' flash
    // attention runs slower per FLOP (wide_head_attention_slowdown, speed_rates.hpp).
    double wide_head_attention_flops = 0;
};

struct SpeedWork {
    std::vector<DeviceWork> gpus;  // one per Hardware::gpus
    DeviceWork ram;                // layers (or experts) in system RAM
    bool float_weights = false;    // 16- or 32-bit float weights: prefill multiplies them as is
    QuantFamily family = QuantFamily::k_quant;
    // The share of a MoE layer's routed experts one token runs (experts_per_token / experts): a
    // micro-batch of few tokens runs, and reads, only some of them (experts_touched).
    double expert_share = 0;
    bool older_build = false;       // a published run of llama.cpp before 2025 (BenchRun)
    bool graph_node_check = false;  // a published CUDA run of #19165 to #21472 (BenchRun)
    bool hip_no_graphs = false;     // a published ROCm run before #22254 (BenchRun)
    // A published run of llama.cpp's CUDA backend before b3216 (BenchRun): on a GPU with FP16
    // tensor cores its quantized prompt products are FP16 GEMMs (fp16_gemm_prompt).
    bool cublas_quantized = false;
    double weights_per_byte = 0;  // of the quantization: the weights a byte of the file holds
    // How many times a Metal decode reads each cached position: every query head for a model
    // whose cache is all one absorbed MLA latent (metal_latent_readers), else once.
    double latent_readers = 1;
    // A MoE layer's routed experts (0 for a dense model), the rows each of their products
    // writes (gate and up: the expert FFN's width; down: the hidden size) and how many products
    // an expert runs (3 with a gate, 2 without), for lone_expert_products.
    double experts = 0;
    std::uint64_t expert_ffn_rows = 0, expert_down_rows = 0;
    double expert_matrix_weights = 0;  // one expert product's weights: FFN width x hidden size
    int expert_matrices = 0;
    // A dense FFN's width and the hidden size (its products: gate and up write ffn_rows rows of
    // hidden_size weights, down hidden_size rows of ffn_rows) and its products a layer (3 gated,
    // 2 not), for mmq_reread_bytes.
    std::uint64_t ffn_rows = 0, hidden_size = 0;
    int ffn_matrices = 0;
    bool bf16_weights = false;       // float weights stored as BF16 (F16 or F32 otherwise)
    bool q4_legacy_weights = false;  // a Q4_0 or Q4_1 file (quantized_tflops)
    // One token's hidden state as llama.cpp hands it from GPU to GPU at each boundary of a layer
    // split (F32: 4 bytes per element of the hidden size).
    double hand_over_bytes = 0;
    // A prompt layer's F32 activation tensors by width (values a token) and how many a layer
    // makes, averaged over the layers (activation_bytes, speed_activation.hpp).
    struct Activation {
        double width = 0, per_layer = 0;
    };
    Activation activations[6] = {};
    // --split-mode tensor (Placement::tensor_parallel): the GPUs run every layer at once, each on
    // its slices, and reduce `reductions` partial sums a token (decode_seconds).
    bool tensor_parallel = false;
    double reductions = 0;
    // The KQ mask cells the host fills for each token (mask_cells in speed_work.cpp): llama.cpp
    // builds each micro-batch's mask on the CPU, one cell per cached cell and token of every KV
    // cache, while the GPUs wait (prefill_seconds, SpeedModel::mask_cell_s).
    double mask_cells = 0;
    // --no-op-offload (Placement::op_offload off): the prompt batches over the weights in RAM
    // run on the CPU, whose throughput the data does not hold.
    bool host_prefill_on_cpu = false;
};

// Whether a quantization keeps weights as 16- or 32-bit floats (FP16, BF16, FP32).
bool is_float_quant(const Quant& quant);

// Where the tokens are: llama-bench's pp512 is 512 prompt tokens at depth 0, tg128 128 decoded
// tokens, "pp512 @ d4096" the same after 4096 tokens already in the cache.
struct SpeedPoint {
    std::uint64_t depth = 0;
    std::uint64_t tokens = 1;
    // A prompt's micro-batch: a sliding-window layer's cache holds its window and one
    // micro-batch (llama_sliding_cells), its masked cells read on CUDA (masked_attention_flops).
    std::uint64_t ubatch = kLlamaDefaultUbatch;
};

// The points estimate_speed reports, tg128 and pp512 at an empty cache; the plan searches judge
// placements at the same ones.
inline constexpr SpeedPoint kDecodePoint{0, 128};
inline constexpr SpeedPoint kPrefillPoint{0, 512};

// `context`: the context the placement's KV cache was sized for.
SpeedWork speed_work(const Model& model, const Quant& quant, const Placement& placement,
                     std::uint64_t context, const SpeedPoint& point);

// What speed_work reads of the model, quantization, context and point, which no placement
// changes: made once, it serves a search's many placements (the model's FLOPs walked its layer
// groups and named its architecture at every call: a fifth of `fit`'s instructions on three
// unlike GPUs). speed_work(model, ...) is speed_work(speed_basis(model, ...), placement).
struct SpeedBasis {
    double dense_flops = 0, expert_flops = 0, attention_flops = 0;  // the whole model's, a token
    double masked_attention_flops = 0;                              // DeviceWork's, whole model
    double wide_head_attention_flops = 0;                           // DeviceWork's, whole model
    double cache_positions = 0;   // cached positions a token's attention reads, every layer
    double kv_share = 0;          // of each share's KV cache, what a token reads at the point
    double recurrent = 0;         // the share of layers that are recurrent
    double weights_per_byte = 0;  // of the quantization
    double experts_held = 0;      // routed experts held for each one a token runs
    double mirrored_layers = 0;   // short convolutions, whole on every GPU under -sm tensor
    double dense_ffn_layers = 0;  // layers with a dense FFN (not a routed-expert one)
    SpeedWork shell;              // the fields no placement sets, and no device's work
};
SpeedBasis speed_basis(const Model& model, const Quant& quant, std::uint64_t context,
                       const SpeedPoint& point);
SpeedWork speed_work(const SpeedBasis& basis, const Placement& placement);
// One share's entry of speed_work(basis, placement), without the others'.
DeviceWork share_work(const SpeedBasis& basis, const Placement& placement, const Share& share);

struct Speed {
    double decode_tokens_per_s = 0;              // at an empty cache (llama-bench tg128)
    std::optional<double> decode_at_context;     // with the cache full to the planned context
    std::optional<double> prefill_tokens_per_s;  // empty: no GPU, or no throughput figure
    // The fold error 80 % of measured runs of this device class stayed within, out of sample,
    // each run weighing one (speed_band); empty where too few runs cover the class or none the
    // placement (offload).
    std::optional<double> decode_band, prefill_band;
    SpeedClass device_class = SpeedClass::unknown;  // of the first GPU (the slowest decides)
    bool offloaded = false;  // part of the model in RAM: the RAM and PCIe terms are assumptions
    // Prefill not estimated: offloaded with --no-op-offload, the CPU reads the prompt over the
    // weights in RAM (SpeedWork::host_prefill_on_cpu).
    bool prefill_on_cpu = false;
    // No GPU: the prompt is the CPU's (cpu_prefill_seconds), at no measured band.
    bool cpu_only = false;
    std::uint64_t ubatch = 512;
    // --split-mode tensor: decode and prefill from the few published pairs
    // (tensor_decode_note), no band.
    bool tensor_parallel = false;
};

// What a --split-mode tensor decode figure rests on, in words: the published runs it was read
// from and what they leave unmeasured.
const char* tensor_decode_note();

// Whether a device does any work for a token (reads bytes or runs layers).
bool busy(const DeviceWork& w);
// The share of routed experts a micro-batch of `batch` tokens runs at least once, each token
// choosing its experts_per_token of the experts independently: 1 - (1 - share)^batch. 1 for a
// dense model; at llama-bench's 512 tokens Qwen3's 8 of 128 leave e^-33 of them idle, at 16
// tokens a third.
double experts_touched(double expert_share, double batch);
// How many of a MoE layer's expert products (0 to 3) llama.cpp runs one expert at a time on
// `device` for a micro-batch of `batch` tokens: ggml_cuda_mul_mat_id at 0ad4a86 (ggml-cuda.cu)
// runs a product on MMQ (quantized) or MMF (float) when ggml_cuda_should_use_mmq /
// ggml_cuda_should_use_mmf take it, and otherwise syncs with the host and calls cuBLAS/hipBLAS
// once per expert (the path llama.cpp#18202 calls slow for "the synchronization overhead").
// Float weights: MMF takes a product of up to 1024 rows up to 512 tokens and a wider one up to
// 128 tokens, on a GPU with the matrix instructions for its type (F16: Volta+, RDNA3/4, CDNA;
// BF16: Ampere+, RDNA3/4, CDNA but CDNA3; F32 is taken as F16). Quantized weights: MMQ takes
// every product but on an NVIDIA GPU without Turing's int8 MMA that has FP16 tensor cores (a
// V100: from MMQ_DP4A_MAX_BATCH_SIZE, 64 tokens) or no dp4a (a P100: always; mmq.cu at
// ggml-org/ggml 43419ff0). Decode (one token) runs on the mat-vec kernels; Metal and Vulkan have
// kernels of their own: 0. Not modelled: RDNA3's and CDNA's choices for some quantized types
// under 64 experts (per-tensor types).
int lone_expert_products(const SpeedWork& work, const GpuDevice& device, double batch);
// Whether `device` multiplies the prompt's quantized weights as FP16 cuBLAS GEMMs after
// converting them to FP16 each micro-batch, as llama.cpp's CUDA backend did on every NVIDIA GPU
// with FP16 tensor cores (Volta on) for products of more than 32 tokens (MMQ_MAX_BATCH_SIZE,
// CUDA_USE_TENSOR_CORES: "on modern hardware, using cuBLAS is recommended as it utilizes F16
// tensor cores") until b3216 (a818f3028, llama.cpp#8075, June 2024: "by default mul_mat_q
// instead of FP16 cuBLAS GEMM is used unless there is no int8 tensor core MMQ implementation
// available but FP16 tensor cores are (V100, RDNA3)"). Such a product costs what an FP16
// file's does (the FP16 rate, its multiplier, its 2 bytes a weight read) plus the conversion:
// the quantized bytes read and 2 bytes a weight written (prefill_seconds). XiongjieDai's May
// 2024 runs (b2824-b2843) measure it: llama-3-8b's pp512 as Q4_K_M takes 17.1 ms more a
// micro-batch than as F16 on an RTX 4090, where the conversion's 18.3 GB take 18.2 ms at its
// 1008 GB/s (an RTX 4080 23.5 ms and 25.5, an RTX A6000 21.9 and 23.8, an RTX 4000 Ada 44.8 and
// 50.8). Not today's V100 (nvidia_volta: its own quantized multiplier carries it).
bool fp16_gemm_prompt(const SpeedWork& work, const GpuDevice& device);
// The bytes one micro-batch of `batch` prompt tokens re-reads from memory, beyond its one read
// of the weights, where llama.cpp's MMQ kernel runs a dense FFN's quantized products on an
// NVIDIA GPU with int8 tensor cores (Turing on: mmq_x = mmq_y = 128 at ggml-org/ggml de71a099,
// llama.cpp b6918's month). Its stream-k loop (mul_mat_q, one CTA per SM) walks the output tiles
// with the token tile innermost: each SM multiplies its 128 weight rows by every 128-token tile
// in turn, re-reading those rows for each. What a round of tiles keeps in L2 (the rows all SMs
// hold at once, min(rows, SMs x 128) x the product's inner size; the token tile's activations;
// the round's FP32 outputs) stays there between the re-reads only where it fits
// (Gpu::l2_cache_bytes); where it does not, every token tile past the first reads the product's
// weights from memory again. A DGX Spark (48 SMs, 24 MiB of L2) multiplying qwen2.5-coder-7b's
// Q8_0 FFN (18944 x 3584; a round holds 23.4 MB of gate or up rows, 0.5 MB of activations and
// 3.1 MB of outputs: 27.0 MB) at -ub 2048 re-reads 15 x 6.1 GB a micro-batch, 0.33 s at 273
// GB/s, where its pp2048 took 0.90 s and was predicted at 0.38 (#34). An RTX 4090's (128 SMs,
// 72 MiB) 8B Q4_K_M products fit (41 MB at most); a 70B model's do not. 0 for float weights
// (cuBLAS), fp16_gemm_prompt's and a GPU without L2 or SM figures.
double mmq_reread_bytes(const DeviceWork& w, const SpeedWork& work, const GpuDevice& device,
                        double batch);
// The decode seconds each busy GPU past the first adds (decode_seconds): one hand-over.
double hand_over_seconds(const SpeedWork& work, const SpeedModel& m);
// Decode seconds per token. A layer split runs its GPUs one after another: the sum of each
// GPU's time and a hand-over between them. Under --split-mode tensor they run at once: the
// slowest GPU's reads, with the per-layer costs (launches, routing, the recurrent scan) shared
// among the GPUs as a layer split of the same GPUs shares them, plus each all-reduce
// (SpeedModel::meta_reduce_s): on like GPUs, the layer split's time / GPUs + the reductions, the
// rule the published pairs were read by.
double decode_seconds(const SpeedWork& work, const Hardware& hardware, const SpeedModel& m);
// A CPU-only plan's seconds per prompt token: every product (SpeedWork::ram's FLOPs) at the
// CPU's int8 rate x SpeedModel::cpu_prefill_efficiency. Empty where the CPU is not known
// (Hardware::cpu) or the weights are 16- or 32-bit floats (no published CPU run).
std::optional<double> cpu_prefill_seconds(const SpeedWork& work, const Hardware& hardware,
                                          const SpeedModel& m);
// Seconds per prompt token; empty when a device doing work has no throughput figure. Under
// --split-mode tensor by decode's rule: the slowest GPU with the per-layer costs shared, plus
// each reduction (SpeedModel::meta_prefill_reduce_s).
std::optional<double> prefill_seconds(const SpeedWork& work, const Hardware& hardware,
                                      const SpeedModel& m, std::uint64_t ubatch);

// One stream: decode at depth 0 and with its sequence's cache full, prefill of a 512-token
// prompt, with the error bands. `context` is the whole cache's tokens; of `n_seq` sequences one
// fills context / n_seq of them, and reads only its own.
Speed estimate_speed(const Model& model, const Quant& quant, const Placement& placement,
                     const Hardware& hardware, std::uint64_t context, std::uint64_t ubatch = 512,
                     std::uint64_t n_seq = 1, const SpeedModel& m = fitted_speed_model());

}  // namespace canitrun
