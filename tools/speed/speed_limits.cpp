// docs/SPEED.md's "Known limits": what the speed fit does not explain, with the runs that show
// it (written by tools/speed/fit_speed through write_speed_report).
#include <ostream>

#include "speed_report.hpp"

namespace canitrun::tools {

namespace {

// The limits of single device classes and kernels, apart so each function stays short.
void write_device_limits(std::ostream& out) {
    out << "- GPUs without matrix units (Tesla P40 and P100, Instinct MI50) are a class of their "
           "own, and llama.cpp multiplies quantized weights on each its own way: a P40 (GP102) "
           "and an MI50 (Vega 20) run its MMQ kernels on 4-way int8 dot products "
           "(`int8_dot_tops` in data/gpus: 47 and 53.6 TOPS, 4x their FP32 rate), a P100 "
           "(GP100, no dp4a) dequantizes to FP16 for cuBLAS at its 18.7 TFLOPS. With one rate "
           "for all three (the larger of FP16 and FP32) the class's prefill missed by 125 % at "
           "the median left out (P100 runs at 0.37x their prediction, the P40's at 2.1x); with "
           "the rate each multiplies quantized weights at, by 25 % (1.10x and 0.98x). The "
           "MI50's one source reads prompts at 0.30x its prediction left out: at its dp4a rate "
           "it reaches about 31 % with Q4_0, as a P40 does, but 15-16 % with Q4_K_S and Q8_0, "
           "unexplained. Their decode reads at 63 % of their bandwidth (a), where the other "
           "groups reach 72-98 %.\n"
           "- Intel is the Arc Pro B70 on Vulkan, whose mat-vec kernels unpack quantized weights "
           "slowly: it decodes BF16 files at 83-87 % of its 608 GB/s and Q4_K_M ones at 22-42 %. "
           "Each group's own unpacking cost (u) says so; with one cost for every device, "
           "kyuz0's and Wesley-Jakob-Gilbert's (Mesa 26.0.3) runs decoded at 0.97x and 0.7x "
           "their prediction left out and Intel missed by 44 % at the median; with u per group, "
           "at 0.90x and 1.07x. A Windows run of llama.cpp#24005 still decodes at 2.1-2.6x it "
           "(tg128, empty and 4096 deep): its 97.8 t/s is 2.5x kyuz0's Linux run of the same "
           "model and type, unexplained.\n"
           "- Flash attention on AMD runs llama.cpp's TILE kernel on the shaders where it has no "
           "MMA path, which RDNA4 gained only in llama.cpp#18481 (January 2026), after every "
           "RDNA4 run in the data (kyuz0's R9700, b7423): its attention is read at the shaders' "
           "packed FP16 rate (attention_tflops: 95.7 TFLOPS, half its 191.4 of WMMA), where "
           "RDNA3's "
           "WMMA and shader rates are one figure. At the WMMA rate, the R9700's pp2048 runs 16384 "
           "and 32768 tokens deep read at 0.52x their prediction left out, AMD's attention "
           "multiplier (t) resting on one RX 7900 XTX prompt 4096 deep (llama.cpp#26284), and "
           "AMD's prefill missed by 67 % at the median left out; at the shader rate, 0.76x at the "
           "median (Qwen3-Next's, a hybrid, lowest at 0.39-0.50x) and 14 %. Today's RDNA4 MMA "
           "path (head size up to 128) is not measured.\n"
           "- RDNA2 (no matrix units) is a band class of its own on AMD's coefficients "
           "(amd_no_matrix_units): its one ROCm prompt run (an RX 6700 XT, llama.cpp#5835) reads "
           "at 0.63x its prediction left out, and as a fifth of the sources AMD's band is a "
           "quantile over, it set that band (± 60 %) for RDNA3 and RDNA4 cards, whose left-out "
           "runs it then held 89 % of.\n"
           "- A MoE model's BF16 experts read a prompt through llama.cpp's one-expert-at-a-time "
           "path where MMF does not take them (lone_expert_products: the down product of every "
           "expert wider than 1024 rows past 128 tokens): a Ryzen AI Max's glm-4.7-flash, "
           "qwen3.6-35b-a3b and gemma-4-26b-a4b BF16 pp512 runs, left out, were predicted 13.2x, "
           "7.5x and 6.8x too fast without that cost and 0.85x, 1.50x and 1.25x with it. A "
           "V100's quantized experts take the same path from 64 tokens, but that cost, fitted "
           "on AMD's runs, did not carry to them (include/canitrun/speed.hpp): not modelled.\n"
           "- MLA attention is counted as llama.cpp runs it, absorbed (each head against the "
           "512-wide latent and its 64-wide rope key, 1088 dims a position for GLM-4.7-Flash, not "
           "its own 512): left out, the RTX 4090's glm-4.7-flash prompts 8192-32768 deep read "
           "1.9-2.3x too fast before and 1.2-1.3x after, and the DGX Spark's depth slope flattened "
           "(qwen2.5-coder-7b 1.53x at 4096 deep to 0.66x at 32768 before, 1.71x to 1.01x after); "
           "a Ryzen AI Max's glm-4.7-flash 32768 deep went from 0.94x to 0.46x. The same 4090's "
           "glm-4.7-flash decode 8192-32768 deep still runs at a third to a seventh of its "
           "prediction: a decode attention term (its FLOPs at the attention rate, shared) fitted "
           "at 6.2x their FLOP time and left it at 5.7x in sample, raising the decode median to "
           "13 %: not kept, unexplained. Not kept either: quantized prompts converted to FP16 for "
           "cuBLAS (a V100's today, every tensor-core GPU's before llama.cpp#8075) as their own "
           "cost, which took datacenter prefill from 51 % to 80 % at the median left out.\n"
           "- An FP32 model's prompt runs cuBLAS's SGEMM on the shaders, not the FP16 path; its "
           "one run (llama.cpp#24216) is kept, not fitted: it was all NVIDIA's float prompts "
           "knew with XiongjieDai's runs left out.\n";
}

// Rows corrected against their sources in #34, and the misses traced but not modelled.
void write_row_limits(std::ostream& out) {
    out << "- A label corrected against its source (#34): lhl's DGX Spark column is "
           "ggerganov's sweep (pp2048 at depths 0-32768, tg32: the command ggml-org "
           "benches/dgx-spark.md prints with n_ubatch 2048), so its prompts are read at -ub 2048, "
           "not llama-bench's 512 (inferred, lhl's table does not print it): left out, they read "
           "at 0.37-0.43x their prediction before and 0.88-1.13x after, and the DGX Spark's "
           "prefill median went from 54 % to 32 %. Not kept: ferrum-infer-rs's M1 Max is the "
           "24-core GPU, which m1-max-32gb's 10.4 TFLOPS (the 32-core one's) overstates by a "
           "third; as its own entry (7.8 TFLOPS, derived) its four prompts left out read at "
           "0.99-1.11x, not 1.28-1.35x, but Apple's attention multiplier, which only "
           "llama.cpp#15616's M2 Ultra prompts deep in the cache pin, moved with it (that "
           "source's pp16384 left out 1.22x to 2.80x) and every run's prefill p90 went from 97 % "
           "to 109 %.\n"
           "- Tried and not kept (#34): a V100's quantized experts run one at a time from 64 "
           "tokens (ggml_cuda_should_use_mmq: Volta has FP16 but no int8 matrix instructions, so "
           "MMQ stops at MMQ_DP4A_MAX_BATCH_SIZE), counted by lone_expert_products: the "
           "datacenter group's prefill p90 left out went from 221 % to 266 % and every run's from "
           "103 % to 110 %. The datacenter group is two platforms its sources do not share: "
           "kyuz0's V100s (MoE, 2026) and XiongjieDai's A40, A100, L40S and H100 (dense, May "
           "2024), so each predicts the other when left out (llama-3.1-70b Q4_K_M pp512 at 2.2x "
           "to 8.8x its measure).\n"
           "- jiegec's RTX 4090 glm-4.7-flash decode 8192-32768 deep (3-7x too fast) prints no "
           "fa column, so it ran llama-bench's default, off in the builds whose source was read "
           "(cmd_params_defaults: flash_attn false; later builds: auto), unconfirmed for its "
           "build 8396. Without flash attention llama.cpp copies the absorbed MLA's values (a "
           "view of the latent cache) transposed every token (llama-graph.cpp build_attn_mha: "
           "v = ggml_cont(ggml_transpose(v)), \"note: avoid this branch\"), a cost that grows "
           "with the depth and that no other source measures: not modelled. Checked again "
           "(#34): from January 2026 (llama.cpp#18953), before that build of March, CUDA had a "
           "flash-attention kernel for this model's 20 query heads a latent (ggml-org/ggml "
           "c044a8ee of 2026-03-16, "
           "src/ggml-cuda/fattn.cu:149, \"gqa_ratio == 20 // GLM 4.7 Flash\", and "
           "ggml_cuda_get_best_fattn_kernel's case 576), so under a default of auto it ran with "
           "flash attention; which path ran stays unconfirmed. Its Q4_K_M decode costs 1.37 us "
           "more a token for every cached token (7.56 ms at depth 0, 52.6 ms at 32768), 29 ns "
           "a layer, 25x the time the 4090's 1008 GB/s reads that layer's 576-value latent in: "
           "neither path's bytes explain it.\n";
}

// Rows judged against their sources in #34's second pass, and what was tried on them.
void write_source_checks(std::ostream& out) {
    out << "- A run flagged against its source (#34): geerlingguy/ai-benchmarks#27's Arc Pro "
           "B50 sits on a Raspberry Pi 500+ host, as #23's RX 7900 XT on a Pi 5 (already flagged "
           "an outlier), and its llama-3.2-3b pp512 read at 0.23x its prediction in sample: "
           "flagged the same way, kept in the data. Every run's prefill median left out went from "
           "25 % to 24 %.\n"
           "- Tried and not kept (#34): the 43 runs llama-bench labels \"llama 7B\" at 6.74 B "
           "parameters (Llama 1 or 2 7B, Code Llama 7B: Llama 2 7B's tensors) read as "
           "llama-2-7b, a relative, all but an MI300X's of December 2024 (0.06x its prediction: "
           "llama.cpp's ROCm MMQ used CDNA3's matrix cores only from llama.cpp#14624 on) "
           "and an Arc 140V's (Vulkan, 2024): 2 more sources and 20 more fitted runs, but the "
           "decode median left out went from 12 % to 13 % and the prefill p90 from 97 % to 99 % "
           "(their decode predicted at 0.57x the measure on the Arc Pro B70, 0.74x on the RTX PRO "
           "6000, 1.2-1.4x on the W7900).\n"
           "- The Arc Pro B70's gemma-4 prompts 16384 deep on Vulkan (12.2 and 49.5 t/s, a tenth "
           "of their prediction, where SYCL reads them at 15x and 11x those) are not flash "
           "attention falling back to the CPU: ggml-vulkan.cpp's supports_op of May 2026 "
           "(ggml-org/ggml 0ce7ad34, src/ggml-vulkan/ggml-vulkan.cpp:15727) takes any head "
           "size that is a multiple of 8, gemma-4's 512-wide global heads included. Not "
           "modelled.\n";
}

}  // namespace

// What the fit does not explain, with the runs that show it.
void write_known_limits(std::ostream& out) {
    out << "\n## Known limits\n\n"
           "- One M5 is in the data: an M5 Max's Qwen3.5-35B-A3B Q5_K_S (jimliddle, b9518). "
           "Predicted with its source left out, from Apple's \"over 4x the peak GPU compute for "
           "AI compared to M4\" (data/gpus/apple.json) that llama.cpp reaches through the Metal 4 "
           "tensor API (ggml-org/llama.cpp#16634), its pp512 and pp2048 land within 4 %; its "
           "decode runs 1.27x the prediction. Apple's decode reads at each chip's own share of "
           "its bandwidth (below), fitted on that chip's runs and pinned towards the share of "
           "every Apple run: with one share for every chip, M1 Max runs (XiongjieDai, "
           "ferrum-infer-rs's 24-core one) decoded at 0.6-0.66x their prediction left out and "
           "Apple's decode missed by 26 % at the median; with a share per chip, each M1 Max "
           "source predicts the other's runs (1.27-1.54x and 0.77-0.90x) and Apple misses by "
           "19 % (12 % before each group had its own unpacking cost u, which took Intel's decode "
           "from 44 % to 20 %). The pin's weight is the one of five tried that gave Apple's "
           "left-out error its "
           "lowest; a chip no decode run measures (every M4, M1 Pro, M2 Max) reads at the share "
           "of every Apple run, unmeasured.\n"
           "- A MoE model reads a prompt faster than a dense model of more active parameters on "
           "Apple and AMD APUs, as their published runs do (tests/speed_sanity_test.cpp); on "
           "CUDA it does not, as the published runs do not either (an RTX 4090 reads "
           "qwen3.5-35b-a3b Q4_K_M at 6300 t/s and qwen3.5-9b Q8_0 at 9513, jiegec/kb).\n"
           "- Most classes are measured by one or two sources, so leaving a source out removes "
           "most of what its class is known by: the out-of-sample error is that of a class's "
           "first measurement, and the bands are as wide.\n"
           "- Every device is fitted on the backend canitrun plans it with (CUDA, ROCm, Metal, "
           "Vulkan for Intel): an Arc Pro B70's SYCL and Vulkan runs of one file differ by up to "
           "15x (gemma-4-31b 16384 tokens deep) and a Strix Halo's ROCm and Vulkan runs by up to "
           "2x, so their other backend's runs stay in the data, labelled, and are not fitted.\n"
           "- A run's weights are read at its file's size as llama-bench printed it, not its "
           "label's: 184 rows are Unsloth UD-Q8_K_XL / UD-Q4_K_XL files that llama-bench labels "
           "Q8_0 / Q4_K_M, up to 36 % larger.\n";
    write_device_limits(out);
    write_row_limits(out);
    write_source_checks(out);
}

}  // namespace canitrun::tools
