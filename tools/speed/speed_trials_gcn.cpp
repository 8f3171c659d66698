// docs/SPEED.md's "Known limits": the MI50's (Vega 20, GCN) prompts (#34, speed34xc), with what
// each change did to the left-out figures (written by tools/speed/fit_speed through
// write_fit_trials).
#include <ostream>

#include "speed_report.hpp"

namespace canitrun::tools {

void write_gcn_trials(std::ostream& out) {
    out << "- Kept (#34): kyuz0's 14 MI50 rows (mi50-gfx906-toolboxes, readme at cee3d723) are "
           "llama.cpp b5890 of July 2025, not of the readme's 2026-04: the table prints 982e3472, "
           "which llama.cpp#14670 prints as \"version: 5890 (982e3472)\" and Homebrew's formula "
           "pins as tag b5890. Judged by that number, their decodes are ROCm's before #22254, "
           "without HIP graphs (hip_no_graphs); their flash attention is off, as the readme's "
           "command says (--flash-attn 0). Every run's decode left out went from 9.78 % / 30.35 % "
           "to 9.65 % / 30.35 % (median / p90; runs past 10 % 192 -> 189), the class without "
           "matrix units' from 21.0 % to 18.0 % (the MI50's gemma-3n-e4b tg128 1.89x -> 1.76x, "
           "qwen3-14b BF16 1.45x -> 1.39x, Q4_0 0.80x -> 0.76x); prefill unchanged.\n"
           "- Kept (#34): a GCN GPU multiplies BF16 weights at its FP32 rate, half its packed "
           "FP16 rate (float_tflops: the MI50's 13.3 TFLOPS beside 26.5). Vega 20 has no BF16 "
           "arithmetic; llama.cpp hands a BF16 prompt product to hipBLAS as a BF16 GEMM on every "
           "AMD GPU (ggml_cuda_op_mul_mat_cublas at ggml-org/ggml 9d4cf829, the runs' b5890; "
           "ggml_cuda_mul_mat_cublas at d99724f2 still, MMF's BF16 path needing WMMA or MFMA), "
           "and rocBLAS ships no Vega 20 kernels for it (ROCm/rocBLAS b520bc83: asm_full/vega20 "
           "holds HB, HHS, HSS and SB GEMMs, no BBS), so its generic fallback runs them "
           "(hip_Cijk_Alik_Bljk_BBS_BH.yaml: KernelLanguage Source, BF16 widened to FP32). "
           "kyuz0's 2x MI50 qwen3-14b BF16 pp512 went from 5.54x to 3.00x its measure left out; "
           "every run's prefill from 12.87 % / 35.55 % to 12.89 % / 35.39 % (50 past 35 %, "
           "unchanged); decode unchanged. It still reads 3.0x: the fallback reaches 3.5 TFLOPS "
           "there, 26 % of the FP32 rate, a figure no source states. Where the MI50's quantized "
           "prompts stand (dense ones left out 1.59-2.04x, 1.48-1.89x in sample: the class's "
           "terms are the P40's and P100's): its Q4_0 pp512 reaches 16.8 TOPS at 2 FLOPs a weight, "
           "31 % of "
           "its 53.6 TOPS of dp4a, as a P40's Llama 3 8B Q4_0 does of its 47 at -ub 128 "
           "(llama.cpp#15715), and its Q4_K_S and Q8_0 half that (GCN's other types, "
           "quantized_tflops): a share of its own for GCN's MMQ would be a free parameter for one "
           "source (b5890 ran GCN on the dp4a MMQ kernels, mmq_y 128; llama.cpp#27841, September "
           "2026, later gave GCN a tuned configuration, 1.6x at -ub 512 on an \"MI60 / MI50\"). "
           "gemma-3n-e4b reads 2.0x (pp512) and 1.8x (tg128), its one source: unexplained (its "
           "AltUp, Laurel and per-layer-input ops are not in the model). Not modelled.\n";
}

}  // namespace canitrun::tools
