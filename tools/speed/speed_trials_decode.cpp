// docs/SPEED.md's "Known limits": decode terms tried by speed34zi (#34) on the clusters of
// left-out decode error on AMD, GeForce and Pascal cards, with what each did to the left-out
// figures (written by tools/speed/fit_speed through write_fit_trials).
#include <ostream>

#include "speed_report.hpp"

namespace canitrun::tools {

namespace {

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

}  // namespace

void write_decode_cluster_trials(std::ostream& out) {
    write_rdna_kquant_trial(out);
    write_build_era_trial(out);
}

}  // namespace canitrun::tools
