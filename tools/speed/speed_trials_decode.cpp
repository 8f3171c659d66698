// docs/SPEED.md's "Known limits": what was tried (#34) on clusters of left-out error: decode
// terms on AMD, GeForce and Pascal cards (speed34zi), Intel's Windows driver and an Alchemist
// card's dp4a rate (speed34zp), ROCm launches without HIP graphs (speed34zq, kept), CUDA graphs
// (speed34zr), Intel's MXFP4 unpacking (speed34zt, kept), with what each did to the left-out
// figures (written by tools/speed/fit_speed through write_fit_trials).
#include <ostream>

#include "speed_report.hpp"

namespace canitrun::tools {

namespace {

// ROCm builds before llama.cpp#22254 launching each kernel from the host, with the figures.
void write_hip_graphs_kept(std::ostream& out) {
    out << "- Kept (#34): llama.cpp's ROCm backend launched each decoded token's kernels one at "
           "a time from the host until llama.cpp#22254 (IMbackK, April 2026: \"HIP: flip "
           "GGML_HIP_GRAPHS to on\"; ggml/CMakeLists.txt had option(GGML_HIP_GRAPHS \"ggml: use "
           "HIP graph, experimental, slow\" OFF) since #11362, January 2025). A ROCm run of an "
           "earlier build pays a shared cost per layer (kh, hip_no_graphs; #22254's number is not "
           "known: no ROCm run lies between b8180 and b9187, a run naming no number is judged by "
           "its day). #22254's own runs measure it: graphs took 12-18 us a layer off dense decodes "
           "(qwen2 14B Q8_0, qwen35 27B Q4_K_M on an RX 7900 XTX) and 27-42 us off gemma4 "
           "26B.A4B Q6_K's (RX 7900 XTX, MI100), 3 us off gpt-oss 20B's. Fitted at 34 us a layer: "
           "every run's decode left out went from 10.99 % / 31.61 % to 10.39 % / 31.59 % "
           "(median / p90; runs past 35 % 27 -> 29), AMD's from 16.2 % / 34.5 % to 10.9 % / "
           "32.3 % (kyuz0's b7423 R9700 runs 12.4 % -> 9.7 %: qwen3-coder-30b-a3b and "
           "nemotron-3-nano-30b-a3b Q4_K_M 1.14-1.24x -> 0.94-0.98x, gemma-3-4b Q3_K_S "
           "1.24-1.34x -> 1.04-1.09x), NVIDIA's GeForce class 12.2 % -> 12.0 %, the datacenter "
           "class's median 11.1 % -> 9.6 % (the shared terms moved: AUGMXNT's H200 405B IQ2_XXS "
           "1.71x -> 1.42x); but the Ryzen AI Max's from 9.3 % to 11.9 % (kyuz0's b9187-b9193 "
           "runs, after #22254, on the per-layer cost of the older builds' runs less kh: "
           "qwen3.6-35b-a3b 1.04-1.17x -> 1.13-1.26x), the later RDNA runs' from 1.09-1.67x to "
           "1.27-1.86x (llama.cpp#24386's RX 9070 qwen3-4b and gemma-4-26b-a4b, #26284's RX 7900 "
           "XTX gemma-4-26b-a4b), kyuz0's R9700 gpt-oss from 0.82-0.92x to 0.76-0.85x, and "
           "Intel's decode median (16.3 %) past 1.5x the overall's (15.6 %). Not kept: a MoE "
           "layer at 38.6 / 26.8 of a dense layer's launches (Pessimist228's nsys kernel counts "
           "for Qwen 3.5 on CUDA), fitted at 27 us a dense layer: 10.86 % / 32.47 %, gpt-oss on "
           "the R9700 at 0.72-0.82x. Prefill unchanged.\n";
}

// A K-quant unpacking cost of its own on RDNA (ROCm), with the figures.
void write_rdna_kquant_trial(std::ostream& out) {
    out << "- Tried and not kept (#34): K-quant weights decoding slower on an RDNA GPU (ROCm) "
           "than elsewhere, as a term of its own (bytes of read time per K-quant weight, shared "
           "by every RDNA card). The RX 7900 XTX's and W7900's 2024 Q4_K_M decodes (AUGMXNT, "
           "b3141-b4006) read at 1.38-1.39x their measure left out where the W7900's Q4_0 ones "
           "of the same builds read at 1.17x and the RX 7900 XTX's (b1988) at 0.99x, "
           "gemma-4-26b-a4b's K-quant decodes at 1.6x (RX 7900 XTX Q6_K, llama.cpp#26284) and "
           "2.04x (RX 9070 Q4_K_M, #24386), and llama.cpp's launch tables for K-quant mat-vecs "
           "on RDNA3 and RDNA4 kept changing through 2026 (#19478; #23349 and #23528 for Q6_K "
           "and Q4_K on RDNA3; #24386, open: +7-20 % tg128 on Q4_K_M). Fitted at 0.17 bytes a "
           "weight: every run's decode left out went from 10.96 % / 38.13 % to 11.19 % / "
           "35.05 % (median / p90; 42 runs past 35 % to 41), the 2024 K-quant runs from "
           "1.38-1.39x to 1.27-1.29x, but AMD's median from 15.5 % to 19.5 % (kyuz0's 2x R9700 "
           "runs: the split's hand-over cost moved from 470 to 625 us) and NVIDIA's from 9.3 % "
           "to 10.5 %; the R9700's MoE K-quant runs (1.2-1.35x) and gemma-3-4b Q3_K_S (1.75-2.12x) "
           "did not move, and a later build's R9700 Q4_K_S runs (llama.cpp#23043, 0.75x) pull "
           "the other way. K-quant decode on RDNA is a matter of builds, not one cost.\n";
}

// A decode cost that llama.cpp builds before b8820 paid, per MoE layer or per layer.
void write_build_era_trial(std::ostream& out) {
    out << "- Tried and not kept (#34): a decode cost per MoE layer that llama.cpp built before "
           "b8820 paid, shared. jiegec/kb decodes the same files on one RTX 4090 at b8396 and "
           "b8820: qwen3.5-35b-a3b UD-Q4_K_XL at 124.46 and 166.29 t/s (+34 %), UD-Q3_K_XL at "
           "127.68 and 173.67, but qwen3.5-27b at 41.48 and 45.18 and qwen3.5-9b at 84.54 and "
           "92.33 (+9 %): 31-52 us a layer that a build between them took out, more on the MoE "
           "model (not found; llama.cpp#19345, CUDA graphs turned off after about 128 decoded "
           "tokens of a Qwen3-Next-style hybrid, February 2026, is a candidate, its fix #19521 "
           "closed unmerged). Left out, the b8396 MoE runs read at 1.60-1.72x (glm-4.7-flash "
           "1.38-1.49x), the b8820 ones at 1.19-1.26x. Fitted at 52 us a MoE layer, the shared "
           "MoE cost (m) went to 0: every run's decode left out from 10.96 % / 38.13 % to "
           "10.22 % / 39.30 % (NVIDIA's GeForce class 10.6 % / 33.9 % to 10.4 % / 21.4 %, "
           "AMD's median 15.5 % to 10.8 %, Apple's 11.0 % to 8.7 %), but every MoE run of a "
           "later build lost its layer cost: gemma-4-26b-a4b on an RX 7900 XTX, RX 9070, Ryzen "
           "AI Max and 2x V100 from 1.1-2.0x to 1.25-2.4x, Intel's median from 15 % to 18 %. "
           "The same cost on every layer, dense models too: 12.56 % / 38.15 % "
           "(pendakwahteknologi's RTX 5090 dense runs, of a build with no number, from 1.0-1.2x "
           "to 1.3-2.7x). Both terms together (0.17 bytes a K-quant weight on RDNA, 53 us a "
           "MoE layer before b8820): 11.37 % / 35.67 %, Intel's median 20.5 %.\n";
}

// llama.cpp#24005's Windows B70 decodes flagged as another driver's path, with the figures.
void write_intel_windows_trial(std::ostream& out) {
    out << "- Tried and not kept (#34): llama.cpp#24005's two Arc Pro B70 decodes (qwen3.6-35b-a3b "
           "Q4_K_M, 97.78 and 80.88 t/s, read at 0.41x and 0.48x their measure left out) kept, "
           "not fitted, as another driver's path. Their device line reads \"Intel(R) Arc(TM) "
           "Pro B70 Graphics (Intel Corporation) | ... | bf16: 0 | ... | matrix cores: none\": "
           "Intel's Windows driver, where kyuz0's and Wesley-Jakob-Gilbert's B70 runs are Mesa's "
           "(\"Intel open-source Mesa driver ... matrix cores: KHR_coopmat\"). ggml-vulkan "
           "runs a Q4_K mat-vec there on the FP16 dequantizing shader, on Mesa on MMVQ "
           "(llama.cpp#20672, March 2026: \"This disables MMVQ entirely on Intel Windows\"; "
           "ggml_vk_should_use_mmvq at ggml-org/ggml ebd69f16: \"Intel Windows proprietary "
           "driver MMVQ performance for !Q2/Q3/Q6 is worse than fp16\"), and Arc cards decode "
           "faster there (llama.cpp#19988, savvadesogle's A770 of #17628 at b8191, Linux against "
           "Windows: "
           "\"llama3-8b q4km: 32 vs 52 t/s\", \"gpt-oss 20b mxfp4: 36 vs 62 t/s\"). Flagged, "
           "every run's decode left out went from 12.52 % / 34.10 % to 12.77 % / 33.63 % "
           "(median / p90; runs past 35 % 39 of 394 to 37 of 392), Intel's from 14.9 % / 70.7 % "
           "to 14.9 % / 65.1 %; but those runs, a fast hybrid MoE, had held Intel's per-layer "
           "and recurrent-layer costs down (in sample 70.7 us and 0 to 103.4 and 189.1 us, "
           "Wesley-Jakob-Gilbert's Nemotron Nano 9B v2 then setting the latter: 1.71x to 1.34x), "
           "so kyuz0's qwen3.6-27b and qwen3.5-9b decodes read at 0.64-0.79x left out "
           "(0.91-1.15x before) and Wesley-Jakob-Gilbert's median went from 10.8 % to 14.8 %. "
           "Not kept: the median past its guard (12.5 %). Telling the drivers apart needs a "
           "run's driver as data and a prediction that knows the user's.\n";
}

// An Alchemist card's quantized prompt at its vector engines' dp4a rate, with the figures.
void write_alchemist_dp4a_trial(std::ostream& out) {
    out << "- Tried and not kept (#34): an Arc A-series card's quantized prompt at its vector "
           "engines' DP4a rate (int8_dot_tops, quantized_tflops), half its XMX figure: an Xe-HPG "
           "vector engine does \"16 FP32, 32 FP16 and 64 INT8 operations\" a clock, 16 of them "
           "an Xe-core (Intel's Xe-HPG architecture as transcribed at "
           "m.yd166.com/jingyan/5611804206_3.html; Intel's oneAPI GPU optimization guide gives "
           "the same 4x for an Xe-LP EU, \"FP32 8 ... INT 8 32 (DP4A)\"), 1024 INT8 operations "
           "beside 2048 FP16 on XMX: 68.8 TOPS for an A770 (32 Xe-cores at 2.1 GHz; derived, not "
           "an Intel figure), where ggml-vulkan runs MMQ on the integer dot product "
           "(cooperative matrices only from Xe2, llama.cpp#14001). llama.cpp#20893's 2x A770 "
           "pp512 went from 3.96x to 2.25x its measure left out and every run's prefill p90 "
           "from 41.90 % to 41.91 % (runs past 35 % 67 to 64), but the median from 14.33 % to "
           "14.61 %: one quantized multiplier for a B70's XMX products and an A770's dp4a ones, "
           "Wesley-Jakob-Gilbert's B70 prompts from 6.8 % to 11.0 % at the median left out "
           "(Intel's 18.2 % to 20.1 %), as at the FP32 rate (above). Decode unchanged.\n";
}

// A rocWMMA build's decode deep in a cache on the VEC kernel (speed34zu), with the figures.
void write_rocwmma_vec_kept(std::ostream& out) {
    out << "- Kept (#34): lhl's Strix Halo gpt-oss-120b decodes 8192 and 32768 deep (b6792, ROCm "
           "with rocWMMA) are flagged outliers in their notes, kept, not fitted. On a "
           "GGML_HIP_ROCWMMA_FATTN build of that month ggml_cuda_get_best_fattn_kernel sends a "
           "decode (Q->ne[1] <= 2) to the VEC kernel (ggml-org/ggml a499133a, 2025-10-14, "
           "src/ggml-cuda/fattn.cu, unchanged until 2025-11-03), which runs one query head a "
           "block and reads its KV head for each (fattn-vec.cuh: K += nb12*(head / gqa_ratio)), "
           "where a build without rocWMMA takes the TILE kernel with the GQA batching "
           "(gqa_opt_applies): gpt-oss's 64 query heads on 8 KV heads read the cache 8 times. "
           "The runs' cost over the empty one, 9.1 and 34.6 ms, is what 8 reads of the 0.34 and "
           "1.25 GB cache take at 256 GB/s (10.6 and 39 ms); eugr's build of the same month "
           "without rocWMMA decodes the same file at 42.36 t/s 8192 deep, lhl's at 32.65 "
           "(lhl/strix-halo-testing#33; llama.cpp#16827: \"severe performance degradation, "
           "especially with decode (tg) as context gets longer\"). Every run's decode left out "
           "went from 10.41 % / 31.59 % to 10.28 % / 31.45 % (median / p90; runs past 10 % "
           "209 -> 204 of 392, past 35 % 29 -> 28), the Ryzen AI Max's from 11.9 % to 9.8 % "
           "(the two had read at 1.18x and 1.88x their measure).\n";
    out << "- Tried and not kept (#34): Metal's vector flash-attention kernel reads a GQA "
           "group's KV head once for each query head it serves, as it reads an MLA latent "
           "(metal_latent_readers): the M2 Ultra's GQA decodes (ggml-org's benches, b7948) read "
           "at 1.0-1.13x their measure empty and 1.07-1.29x 32768 deep left out "
           "(qwen3-coder-30b-a3b Q8_0 1.02x to 1.29x, qwen2.5-coder-7b 0.84x to 1.00x, gpt-oss "
           "0.93-0.98x to 1.07-1.11x), their cache read at 300-370 GB/s of its 800. A shared "
           "share of the (heads / KV heads - 1) re-reads taken from memory, fitted at 0.21 in "
           "sample: every run's decode left out went from 10.28 % / 31.45 % to 11.06 % / "
           "43.10 % (runs past 35 % 28 -> 50), Apple's from 10.5 % to 16.8 %; that source is "
           "the only one with a Metal GQA decode deep in a cache, and with it left out the "
           "share is set by the others' runs at a few hundred positions: its deep runs read at "
           "0.06-0.51x. A figure for the GPU's caches (an M2 Ultra's system-level cache against "
           "a layer's 17-67 MB of KV 8192-32768 deep) would have to be stated, not fitted.\n";
    out << "- Where the M5 Max's decode error sits (#34): ax-engine's 16 decodes read at "
           "0.79-0.94x their measure left out, 0.83-0.94x in sample, with the chip's a at its "
           "floor of 1 (614 GB/s, Apple's figure for the 40-core part). Fitted alone on its 17 "
           "runs (share of the bandwidth, a cost per layer and one per MoE layer, no unpacking "
           "cost) they take 91 %, 85 us and 63 us and miss by 3.7 % at the median: beside "
           "Apple's 95 us a layer and the shared 61 us a MoE layer, what holds them slow is "
           "Apple's unpacking cost u (0.17 bytes of read time a quantized weight, 0.20 at the "
           "M5 Max's 27 FP32 FLOPs a byte: a quarter to a third of a K-quant's read), which no "
           "2026 Metal run measures against float weights (every Apple float decode is of 2024). "
           "The same fit on the M2 Ultra's 36 runs: 82 %, 99 us, 103 us. Tried and not kept: a "
           "shared unpacking cost for llama.cpp built before 2025 (as ko is a layer's), to let "
           "u be the later builds' own: fitted at 0, nothing moved.\n";
}

// Two decode terms about CUDA graphs (speed34zr), with the figures.
void write_cuda_graph_trials(std::ostream& out) {
    out << "- Tried and not kept (#34): a CUDA decode launched kernel by kernel from the CPU, "
           "not as one CUDA graph, paying a shared cost per layer: on Pascal always, on Volta "
           "and Turing before llama.cpp#25749 (2026-07-16, \"Enable CUDA graphs on "
           "Volta+Turing\"; #27721, open, reads a GTX 1080's tg64 at 41.47 t/s with graphs off "
           "and 73.85 on), and on several GPUs of a layer split before #13814 (2025-05-27: "
           "\"when pipeline parallelism is enabled, CUDA graphs could not be used\"): kyuz0's "
           "V100 and P100 runs, XiongjieDai's 26 several-GPU ones, AUGMXNT's 8x H100. Fitted at "
           "1.3 us a layer, next to nothing: every run's decode left out 11.02 % -> 10.97 % at "
           "the median, p90 up 0.1 point (runs past 35 % 27 -> 28), NVIDIA GeForce's median "
           "12.2 % -> 13.4 %. The groups' own per-layer costs already hold it (the V100 decodes "
           "on the datacenter group's 106 us, the P100 on its class's 210 us), and XiongjieDai's "
           "70B Q4_K_M decodes read alike on one card and four (RTX A6000 14.71 and 14.44 t/s). "
           "Not kept either: a MoE layer on an NVIDIA GPU under CUDA graphs costing a shared "
           "figure of its own, apart from m (ROCm, Vulkan, Metal and graphless CUDA launch a "
           "MoE layer's router, top-k and expert-sum kernels one by one): fitted at 57 us beside "
           "m's 66, every run's decode left out 11.02 % -> 11.73 % / 31.6 % -> 33.7 % (runs "
           "past 35 % 27 -> 34), GeForce's 12.2 % -> 15.9 %: the RTX 4090's MoE decodes "
           "(ggml-org 2025-10, jiegec/kb 2026-03/04) read 1.2-1.33x too fast left out and the "
           "RTX 5090's (Pessimist228, b10326) 0.69-0.79x, one figure cannot hold both. The 4090 "
           "reads qwen3-30b-a3b at 161.55 t/s (Q4_0, #16834, 2025-10) where an RTX PRO 6000 "
           "Blackwell, of the 5090's GB202, reads it at 251.61 (Q4_K_M, AUGMXNT, 2025-09): "
           "less the weights' read at each card's bandwidth (an estimate: about 1.7 GB a "
           "token), about 90 and 60 us a layer, unexplained here. Blackwell runs from "
           "llama.cpp#22522 on (2026-05-20) launch kernels with Programmatic Dependent Launch "
           "(cc >= 9.0, Ada excluded), which only two sources measure.\n";
}

}  // namespace

// An Intel GPU's MXFP4 weights unpacked a byte and a table look-up at a time (kept), and the
// other per-type terms tried for Intel's decode (speed34zt), with the figures.
void write_intel_fp4_kept(std::ostream& out) {
    out << "- Kept (#34): an Intel GPU decodes a 4-bit float (MXFP4) weight at a cost of its own "
           "on top of its group's unpacking (SpeedModel::intel_fp4_unpack, shared, nonzero only "
           "on Intel). On Mesa, ggml-vulkan sends an Intel GPU's mat-vecs of every type but Q4_0 "
           "and Q5_1 (k >= 2048) to MMVQ (ggml_vk_should_use_mmvq at ggml-org/ggml 0ce7ad34 and "
           "d99724f2), whose MXFP4 repack loads a block's 17 bytes one at a time (\"1-byte loads "
           "for mxfp4 blocks\") and looks every E2M1 value up in kvalues_mxfp4 before the int8 "
           "dot product (mul_mat_vecq_funcs.glsl at 0ce7ad34), where a K-quant's nibbles go to "
           "it as loaded; no Intel GPU has an FP4 unit. The Arc Pro B70's gpt-oss-20b decodes "
           "(kyuz0 b9039, Wesley-Jakob-Gilbert b9739, both Mesa) read at 1.41-1.63x their "
           "measure left out, every other Intel file within 0.79-1.35x but llama.cpp#24005's "
           "Windows runs, Q8_0, Q2_K, Nemotron Nano and Gemma 4 deep; they now read at "
           "0.97-1.21x. Every run's decode "
           "left out went from 10.39 % / 31.59 % to 10.46 % / 30.64 % (median / p90; runs past "
           "35 % 29 -> 26), Intel's from 16.3 % to 13.2 % at the median (within 1.5x of the "
           "overall; p90 74.5 % -> 76.5 %, runs past 35 % 9 -> 6); prefill unchanged. The "
           "median's rise is Wesley-Jakob-Gilbert's K-quant runs (1.08-1.25x -> 1.10-1.26x): "
           "with that source left out, kyuz0's gpt-oss runs no longer pull Intel's u up. Not "
           "measured by a source apart from the runs: no published test-backend-ops MUL_MAT "
           "figure for an Xe2 GPU's MXFP4 mat-vec was found. Tried and not kept: the same cost "
           "for Intel's legacy types (Q8_0 on MMVQ; Q4_0 exempt) and i-quants too (every run's "
           "decode 10.73 % / 31.42 %, Intel's 19.8 % / 51.1 %: kyuz0's Qwen3.5-9B Q8_0 is an "
           "Unsloth UD-Q8_K_XL file, 12.07 GiB for 8.95 B weights, whose wider tensors do not "
           "pay it, 1.11-1.21x -> 0.66-0.75x, while Wesley-Jakob-Gilbert's plain Q8_0 went only "
           "from 1.77x to 1.46x); legacy and MXFP4 alone, 10.72 % / 31.59 % (Intel 20.1 %). And "
           "a UD file's weights counted as its model's rather than as its bytes at its label's "
           "weights per byte (the unpacking is per weight; speed_work counts bytes x the "
           "label's weights per byte, 36 % too many for that Q8_0 file): 10.41 % / 31.94 %, "
           "Intel's 18.8 %, the datacenter class's 9.6 % -> 13.2 %. Looked into, not modelled: "
           "the B70's Gemma 4 31B decode 16384 deep (2.10x left out; tg128 0.79x) spends 141 ms "
           "a token more than empty, 860 ns for each position of its 10 global layers, 37x the "
           "stated 23 ns: their attention runs at 76 GFLOPS (32 heads of 512), Qwen3.6 27B's "
           "head-256 layers at about 200 at the same depth, both on the scalar shader (a "
           "one-row flash attention takes FA_SCALAR; supports_op takes head 512: no fallback). "
           "Nemotron Nano 9B v2 (1.74x) is no fallback either: Vulkan's SSM_SCAN takes its "
           "Mamba-2 layers (d_state 128, head 80) at 0ce7ad34, and SYCL reads it at 22.14 t/s "
           "beside 19.19, where Llama 3.1 8B Q4_K_M reads at 88.49 and 42.0: its 27 Mamba-2 "
           "layers cost about 1 ms a token each on the B70, unexplained.\n";
}

void write_decode_cluster_trials(std::ostream& out) {
    write_hip_graphs_kept(out);
    write_rdna_kquant_trial(out);
    write_build_era_trial(out);
    write_intel_windows_trial(out);
    write_alchemist_dp4a_trial(out);
    write_cuda_graph_trials(out);
    write_rocwmma_vec_kept(out);
    write_intel_fp4_kept(out);
}

}  // namespace canitrun::tools
