// docs/SPEED.md's "Known limits", its second half: the terms tried on the fit, kept or not, with
// what each did to the left-out figures (written by tools/speed/fit_speed through
// write_known_limits).
#include <ostream>

#include "speed_report.hpp"

namespace canitrun::tools {

namespace {

// The prefill experiments of the seventeenth session (#34): what each did to the left-out
// figures.
void write_prefill_trials(std::ostream& out) {
    out << "- Kept (#34): an RDNA3.5 APU's (Ryzen AI Max, gfx1151) prompts on ROCm from before "
           "December 2025 kept, not fitted (fit_exclusion). Until llama.cpp#17576 (WMMA-MMQ for "
           "RDNA3, then #18666's RDNA3.5 selection) ggml_cuda_should_use_mmq sent an RDNA3 "
           "product of 64 tokens or more to hipBLAS on weights converted to FP16, and rocBLAS's "
           "gfx1151 kernels ran far below its gfx1100 ones (ROCm/legacy-rocm-build#4748; "
           "llama.cpp#13565, b5392: llama-2-7b Q4_0 pp512 at 348.6 t/s on HIP, 881.4 on "
           "Vulkan): a path llama.cpp no longer takes there. Its seven runs (AUGMXNT's two of "
           "b5684, lemonade-sdk/llamacpp-rocm#7's, geerlingguy/ai-benchmarks#21's of b6092, "
           "lhl's three of b6792; four of them read at 1.8-4.2x their measure in sample) set "
           "the group's prompt terms whenever kyuz0's 2026 runs were left out. Not fitted, "
           "every run's prefill left out went from 23.8 % to 22.3 % at the median and from "
           "77.8 % to 66.1 % at p90 (363 runs), kyuz0's Strix Halo prompts from 42 % to 24 %, "
           "AMD's median from 30 % to 22 %, the group's band from within 3.0× to ± 35 %; decode "
           "unchanged. The band coverage counted each run under the type of its own fold's "
           "band, and so read 85.4 % for \"within N×\" (129 of 151; 84.9 %, 135 of 159, "
           "before): the group's runs those bands held worst (5 of 8) left the tally, while "
           "no_matrix_units, printing \"within 2.3×\", put its MI50 runs (0 of 7, their "
           "fold's band ± 30 %) in the \"± N %\" one. Counted under the type their class "
           "prints, as docs/SPEED.md's class table is, the \"within N×\" bands hold 80.1 % "
           "(129 of 161; 79.9 %, 135 of 169, before), the \"± N %\" ones 81.9 % (321 of 392; "
           "82.1 % before, 80.0 % as counted before). The same for every RDNA3 card (the RX 7900 "
           "XTX's and W7900's 2024 runs too, which rocBLAS's gfx1100 kernels ran within 10 % "
           "of the fit): 24.4 % / 81.0 %.\n"
           "- Tried and not kept (#34): a prompt's per-layer cost per micro-batch (q) shared by "
           "every group, as kernel launches and synchronisation are the host's: the median "
           "left out 23.8 % to 22.9 % but p90 77.8 % to 78.6 % (NVIDIA's median 24 % to 26 %, "
           "AMD's p90 99 % to 128 %); with the RDNA3.5 runs above not fitted (22.3 % / "
           "66.1 %), 21.9 % / 78.9 %. "
           "The expert products' cost (x) shared, as the issue asks for MoE terms where a class "
           "has none of its own: 25.0 % / 85.0 %. The recurrent scan's (qr) shared: 23.6 % / "
           "98.7 % (Intel's p90 56 % to 386 %).\n"
           "- Tried and not kept (#34): an Intel GPU's prompt attention at its vector engines' "
           "FP32 rate (an eighth of XMX, as float_tflops reads its BF16 weights), since its "
           "multiplier t on the XMX rate is 78 (2.4 TFLOPS on the Arc Pro B70; 10 at the "
           "vector rate, as the other groups' 2.6-10.4): the median left out 23.8 % to 24.3 %, "
           "p90 77.8 % to 78.2 % (the B70's runs deep in a cache unchanged: with kyuz0 left out "
           "no Intel run is deep); with the RDNA3.5 runs above not fitted (22.3 % / 66.1 %), "
           "23.2 % / 68.9 % "
           "(kyuz0's Strix Halo 24 % to 31 %, through the pooled t).\n";
}

// The eighteenth session's (#34): a V100's prompts apart from the other datacenter cards'.
void write_volta_trials(std::ostream& out) {
    out << "- Kept (#34): a V100 (nvidia_volta) reads a prompt on coefficients of its own and "
           "decodes on the datacenter group's. Volta has FP16 tensor cores but not the int8 ones "
           "MMQ's matrix path needs, so ggml_cuda_should_use_mmq keeps an NVIDIA GPU without "
           "turing_mma_available on MMQ only below MMQ_DP4A_MAX_BATCH_SIZE (64 tokens) and "
           "multiplies a longer quantized prompt as an FP16 cuBLAS GEMM, where an A100, H100 or "
           "L40S runs MMQ on int8 tensor cores. In one group, kyuz0's V100 runs (2026, MoE) and "
           "XiongjieDai's A40, A100, H100 and L40S ones (May 2024, dense), its only two large "
           "sources, each set the group's prompt terms when the other was left out: the 70B "
           "Q4_K_M prompts read at 2.3-8.9x their measure. A V100 prompt coefficient is pinned "
           "at the datacenter group's value fitted with the V100's rows merged in "
           "(tools/speed/fit_speed.cpp parent_pins), so with its source left out a V100 reads "
           "as inside the group, and its quantized multiplier is held at 1 or more as the FP16 "
           "one is (fitted free it came out 0, a V100 then reading a dense 70B prompt faster "
           "than an A100). Every run's prefill left out went from 22.3 % to 21.8 % at the median "
           "and from 66.1 % to 57.6 % at p90 (21.4 % / 56.0 % without the V100's floor), the "
           "datacenter class's from 43 % / 227 % to 21 % / 50 % (XiongjieDai's 70B Q4_K_M "
           "prompts 0.50-0.95x), the V100's from 39 % / 148 % to 37 % / 129 %, NVIDIA's median "
           "from 24 % to 21 %; AMD's from 22 % to 24 % (the shared terms moved), Apple's from "
           "14 % to 16 %; decode unchanged (12.0 % / 45.8 %). AUGMXNT's deepseek-v3 pp512 on 8 "
           "H100s left out went from 1.77x to 6.2x: the datacenter group's only MoE prompt, its "
           "expert cost x is then the value pooled over every group, no longer the V100's. The "
           "datacenter class and the V100 now each have a single source with 10 left-out runs "
           "or more, so the band coverage judges 2 of their runs, not 96: \"± N %\" 77 % of "
           "345 runs, \"within N×\" 82 % of 116 (81.9 % of 392 and 80.1 % of 161 before). Tried "
           "and not kept: the V100 a group of its own "
           "for decode as well, pinned at the value pooled over every group: the datacenter "
           "class's decode left out went from 11 % to 40 % at the median (XiongjieDai's runs "
           "then judged by AUGMXNT's two H100 / H200 runs alone) and every run's from 12.0 % / "
           "45.8 % to 12.8 % / 50.7 %; its prompts at the pooled value too (not the "
           "datacenter group's), the V100's prefill left out 138 % / 544 %. The datacenter group's "
           "expert cost x pinned at the value fitted with the V100's rows merged in, for the "
           "deepseek-v3 run above: that run 6.2x to 1.98x and the class's prefill band within "
           "6.2× to ± 98 %, but the class's prefill left out 21 % / 50 % to 28 % / 72 % and "
           "every run's 21.80 % / 57.60 % to 21.85 % / 57.85 %.\n";
}

// The eighteenth session's (#34), after 88 more rows: Gated DeltaNet runs before the fused op,
// and the Ryzen AI Max's prompts falling back on the discrete Radeons'.
void write_delta_net_trials(std::ostream& out) {
    out << "- Kept (#34): a Gated DeltaNet model's run (Qwen3-Next, Qwen 3.5 / 3.6: linear "
           "attention layers) on a llama.cpp before b8233 is kept, not fitted (fit_exclusion). "
           "Until c5a778891 (llama.cpp#19504, the fused GATED_DELTA_NET op, CPU and CUDA; the "
           "chunked fused prompt path followed in #20340) the recurrence ran as a graph of small "
           "ops (#19504's master qwen3next Q2_K graph: \"6242 (with bs=1)\" nodes; #20091: \"the "
           "decomposed 23-op graph\"), a path llama.cpp no longer takes. llama.cpp#18683's 3x RTX "
           "3090 qwen3next Q2_K at b7700 read 1.8x (decode) and 1.9x (prompt) too fast in "
           "sample and, left in, set NVIDIA's decode terms whenever jiegec's RTX 4090 was left "
           "out (12 % to 33 %). Ten fitted rows leave the fit (R9700 b7423, 3x RTX 3090 b7700, "
           "a Ryzen AI Max's qwen3-coder-next of 2026-02). With the 88 rows of 2026-12-06 and "
           "the V100 split: decode left out 14 % / 49 % to 11 % / 44 % (median / p90), NVIDIA's "
           "decode 14 % / 48 % to 9 % / 35 %, the \"± N %\" bands' coverage 74 % of 429 to 82 % "
           "of 418; prefill 19 % / 70 % to 19 % / 79 %.\n"
           "- Kept (#34): an RDNA3.5 APU's (Ryzen AI Max) prompt coefficients fall back on the "
           "discrete Radeons' group (tools/speed/fit_speed.cpp parent_group), not on the value "
           "pooled over every group: ROCm runs the same MMQ-on-WMMA kernels on both "
           "(llama.cpp#17576, #18666), while the pooled terms are set by NVIDIA's and Apple's "
           "matrix units (the M2 Ultra's 60 MoE and dense runs moved the pooled expert cost). "
           "With kyuz0's Strix Halo runs left out, the group's prompts read at 2.2-2.7x their "
           "measure, dense and MoE alike. Prefill left out 19 % / 79 % to 17 % / 53 %, AMD's "
           "19 % / 146 % to 11 % / 45 %, the Ryzen AI Max's 118 % / 155 % to 8 % / 28 % (its band "
           "within 2.5× to ± 18 %); decode unchanged. Tried and not kept: each source weighing "
           "one in the fit (every row 1 / its source's rows; and its square root): decode 11 % / "
           "44 % to 15 % / 68 % (13 % / 47 %), prefill 19 % / 79 % to 27 % / 106 % (21 % / "
           "90 %): a source of a few runs then sets a group's terms.\n";
}

// #34's Intel decode deep in a cache: the stated per-position cost on Xe2, with the figures.
void write_xe2_kv_position_trial(std::ostream& out) {
    out << "- Kept (#34): on an Xe2 (Battlemage) GPU each cached position costs each attention "
           "layer that reads it 23 ns of decode time on top of its bytes' read time "
           "(SpeedModel::xe2_kv_position_s, stated, not fitted). llama.cpp#26581 measured \"a "
           "near-constant ~21-25 ns per KV position per full-attention layer per token\" on an "
           "Arc Pro B70, on Vulkan and SYCL alike, at b8183 and b10235, for KV rows of 1 KiB to "
           "8 KiB (\"byte-independence rules out DRAM bandwidth\": attention mat-vecs with too "
           "few loads in flight for GDDR6's latency); a second B70 there, 0.49 us a position over "
           "16 full-attention layers (SYCL, b10450). kyuz0's eight B70 decodes 16384 tokens deep "
           "(b9039) are all one source's, so a fitted term would be 0 whenever it is left out. "
           "With it, the B70's nine decodes at a depth (those eight and llama.cpp#24005's 4096 "
           "deep) read at 0.49-2.35x their measure left out (0.45-2.48x before; median error "
           "47 % to 18 %), every run's decode went from 11.2 % / 38.7 % to 11.0 % / 38.1 % "
           "(median / p90), the runs at a depth from 12.3 % / 42.8 % to 13.0 % / 33.9 %; but "
           "Intel's from 14.2 % / 62.5 % to 15.0 % / 67.8 %: with the deep runs' extra time in "
           "the new term, kyuz0's runs give the class a smaller a, and Wesley-Jakob-Gilbert's "
           "sixteen (b9739; its Q8_0, Q2_K, MXFP4 and hybrid runs at 1.6-1.9x) went from "
           "12.1 % / 58.0 % to 14.9 % / 69.4 %. Gemma 4 31B 16384 deep stays at 2.35x: it "
           "decodes at a third of its empty-cache rate, past what 23 ns a position explains "
           "(not explained here).\n";
}

// #34's Intel decode: kyuz0's Arc Pro B70 MoE runs before MMVQ on Xe2, with the figures.
void write_xe2_mmvq_trial(std::ostream& out) {
    out << "- Kept (#34): an Xe2 (Battlemage) GPU's decode of a MoE model's K-quant "
           "file on Vulkan before llama.cpp b9452 is kept, not fitted (fit_exclusion). "
           "llama.cpp#23056 (b9452) moved "
           "Intel BMG's K-quant mat-vecs to MMVQ (\"Xe2 wins on MMVQ even for small k, so we take "
           "the NVIDIA override for K quants on Xe2 as well\"; on Mesa the switch alone gave "
           "+57 % tg128 on a Q3_K file and +78 % on Q6_K), and a MoE model's products are the "
           "small-k ones (experts 512-1856 wide, hidden 2048-2816). kyuz0's b9039 runs (Mesa ANV) "
           "decode qwen3.6-35b-a3b Q4_K at 38.97 t/s where its SYCL build reads 72.23, "
           "Wesley-Jakob-Gilbert's b9739 qwen3-30b-a3b Q4_K 62.37 and TheBlueMatt's Arc Pro B60 "
           "(llama.cpp#21431, 456 GB/s) qwen35moe 35B.A3B Q4_K 49.3; left out, kyuz0's six MoE "
           "K-quant runs (qwen3.6-35b-a3b, nemotron-3-nano-30b-a3b, gemma-4-26b-a4b, empty and "
           "16384 deep) read at 1.6-4.3x their measure. Not fitted: Intel's decode left out went "
           "from 23 % / 111 % to 17 % / 54 % (median / p90; 41 runs to 35), llama.cpp#20893's "
           "2x Arc A770 from 19 % to 3 %, every run's p90 from 44 % to 42 %, but every run's "
           "median from 10.8 % to 11.0 % (10.76 % to 10.99 %; the shared terms moved: "
           "XiongjieDai's datacenter FP16 runs left out 2-73 % to 9-89 %, kyuz0's MI50 "
           "llama-4-scout 8 % to 34 %): kept for the source that says those runs measured a "
           "path llama.cpp no longer takes there, and the worst misses it removes; prefill "
           "unchanged; the \"± N %\" bands 81 % of 455, \"within N×\" 81 % of 75. Every K-quant "
           "decode of those builds, dense too (kyuz0's qwen3.6-27b and gemma-4-31b): Intel 21 % / "
           "51 %, every run's median 11.4 %. Left: the Windows run of llama.cpp#24005 (97.8 t/s, "
           "no build given) still reads at 0.39-0.47x left out.\n";
}

// #34's decode deep in a cache: what was tried beside keeping flash-attention-off runs out.
void write_flash_attn_trials(std::ostream& out) {
    out << "- Tried and not kept (#34), with the runs without flash attention out: their prompts "
           "deep in a cache kept out as well (prefill left out 16.6 % / 52.7 % to 17.4 % / "
           "58.5 %: they carry NVIDIA's attention multiplier); a decode attention term, its FLOPs "
           "at attention_tflops times a multiplier, per group (decode 15.9 % / 61.5 %: a group "
           "whose one deep source is left out takes the pooled multiplier, the R9700's and the "
           "V100's runs 11-13 % to 41-52 %) or shared (12.7 % / 39.0 %). Tried again with "
           "today's rows, per group: decode 12.9 % / 44.8 % to 14.7 % / 52.3 % (Intel's "
           "multiplier 380, the V100's runs 11 % to 52 % at the median left out): not kept.\n"
           "- Kept (#34): a Metal decode reads a cache that is all one absorbed MLA latent once "
           "per query head (SpeedWork::latent_readers, speed_work.cpp). Metal's vector "
           "flash-attention kernel runs one query head a threadgroup (ggml-metal-ops.cpp "
           "ggml_metal_op_flash_attn_ext at b828e18c7, and still at d8a24cce: nhptg = 1; "
           "kernel_flash_attn_ext_vec reads KV head iq2 / (ne02 / ne_12_2)), and llama.cpp runs "
           "MLA absorbed as MQA, one latent for every head, so GLM-4.7-Flash's 20 heads read it "
           "20 times. An M2 Ultra's glm-4.7-flash Q8_0 decode with flash attention (ggml-org's "
           "benches, b7948) costs 29 ms a token more 32768 deep than empty, the latent's "
           "1.8 GB read at 61 GB/s once or 1.2 TB/s per head; its GQA runs (qwen3-coder-30b-a3b, "
           "qwen2.5-coder-7b, gpt-oss; 4-8 query heads a KV head) read their caches at "
           "300-370 GB/s of its 800, so a GQA cache is read once as before. Left out, those "
           "glm-4.7-flash runs read at 1.38x, 1.60x, 1.97x and 2.64x their measure 4096 to "
           "32768 deep before and at 0.98x, 0.90x, 0.79x and 0.71x after: counted in full, the "
           "deepest read slow (some re-reads presumably hit the GPU's caches; not measured). "
           "Other backends are unchanged (the DGX Spark's CUDA runs of the same file read at "
           "1.15-1.20x).\n"
           "- Tried and not kept (#34; branch speed34zb-scores): a prompt without flash "
           "attention writing its scores out, 20 bytes a score on CUDA (llama-graph.cpp "
           "build_attn_mha: KQ in F32 at GGML_PREC_F32, ggml_soft_max_ext, then "
           "ggml_cuda_mul_mat_batched_cublas converting KQ to FP16), one per query head and cache "
           "cell, at the device's bandwidth times a fitted multiplier held at 1 or more: jiegec's "
           "RTX 4090 prompts 8192-65536 deep went from 1.01-1.48x to 0.88-1.09x their measure in "
           "sample (NVIDIA's attention multiplier from 5.2 to 2.7) and the DGX Spark's "
           "qwen3-coder-30b-a3b 16384-32768 deep from 0.53-0.60x to 0.99-1.00x left out, but "
           "jiegec's own left out to 0.72-0.87x (the multiplier at its floor) and XiongjieDai's "
           "datacenter prompts, whose group two AUGMXNT prompts then set, from 0.48-1.68x to "
           "0.08-1.55x: every run's prefill left out 16.6 % / 56.2 % to 17.8 % / 64.2 % (with "
           "the floored-multiplier rule below).\n"
           "- Kept (#34): a parent group's floored multiplier (attention, the float and the "
           "V100's quantized p) counts as measured only by a run whose ideal time for it is 1 % "
           "of its measured time or more (fit_speed.cpp kFloorMeasuredShare). An empty prompt's "
           "attention (0.3 % of an A100's 8B pp512) had the datacenter group's attention "
           "multiplier \"measured\" at its floor with kyuz0's V100 runs, its only prompts deep "
           "in a cache, left out, and the V100's pinned there: its MoE pp2048 runs 32768 deep "
           "read at 1.9-2.35x their measure left out. Now such a multiplier takes the value "
           "pooled over every group.\n";
}

void write_bandwidth_floor(std::ostream& out) {
    out << "- Kept (#34): 90 more published rows (1169 to 1259; deepindeepsea/rtx5090-q36-bench, "
           "Pessimist228's RTX 5090 Qwen3.5-35B-A3B runs, pendakwahteknologi/benchmark-rtx5090, "
           "llama.cpp#23043's AI PRO R9700, more RTX 3090 MoE prompts), the first MoE runs on one "
           "GeForce card: the committed fit read the 5090's Qwen3.5/3.6-35B-A3B decode at 190 "
           "t/s where the runs measure 244-318. Fitted, they set NVIDIA's terms, and every run's "
           "error left out grew (decode 11.8 % / 38.4 % to 14 % / 49 %, prefill 16.6 % / 52.7 % "
           "to 20 % / 61 %, median / p90): the model, not the data, is what they find wanting "
           "(the 5090's MoE prompts read 1.8x too fast at the median left out). With them a "
           "left-out fit also took Intel's share of the bandwidth (a) under 1: with kyuz0's Arc "
           "Pro B70 runs out, Intel's other sources decode only quantized files, whose time a "
           "and the unpacking cost u share, and the B70's BF16 decodes read at 13-27x their "
           "measure, faster than its 608 GB/s could feed them. a is now held at 1 or more (no "
           "mat-vec reads weights faster than the memory does; every group's fitted a is 1.04 "
           "or more, so the fit on every source is unchanged by it): decode left out 14 % / "
           "49 % to 12.9 % / 44.8 %, Intel's median 40 % to 19 %; prefill 19.5 % / 60.7 %.\n";
}

void write_bandwidth_pin(std::ostream& out) {
    out << "- Kept (#34): each group's share of the bandwidth (a) is pinned at the value pooled "
           "over every group at the weight of three runs (kBandwidthPinWeight, fit_speed.cpp), "
           "not at a millionth as the other per-group terms are. A group whose remaining sources "
           "decode only quantized files cannot tell a from its unpacking cost u (a file's bytes "
           "and weights move together): with kyuz0's AI PRO R9700 runs left out, AMD's other "
           "sources (RX 7900 XTX, W7900, RX 9070; Q4_0, Q4_K, Q6_K) left a to trade with u, "
           "and the R9700's BF16 decodes read at 0.55-0.62x their measure. A group with float "
           "runs of its own is held by them. Weights tried, with the Metal latent rule above "
           "(decode left out, median / p90): 0.03 (14.0 % / 41.6 %), 0.3 (13.5 % / 40.7 %), 1 "
           "(13.4 % / 38.7 %), 3 (13.1 % / 38.9 %), 10 (13.0 % / 38.9 %); without the latent "
           "rule 0.3 gave 13.4 % / 41.5 %. With both, every run's decode left out went from "
           "12.9 % / 44.8 % to 13.1 % / 38.9 %; AMD's median from 26 % to 16 % (kyuz0's R9700 "
           "source 22 % to 11 %), Intel's from 19 % to 14 %, Apple's p90 from 32 % to 23 %; but "
           "the median of XiongjieDai's 70 runs left out rose from 10 % to 13 %, as each change "
           "moved the M2 Ultra's a: with that source out, the per-layer cost of builds before "
           "2025 (ko, shared) rests on 14 runs, one an M2 Ultra FP16 decode (llama.cpp#10238), "
           "and its GeForce, workstation and Apple runs read 8-10 % slower. Prefill "
           "unchanged.\n";
}

void write_band_weights(std::ostream& out) {
    out << "- Kept (#34): a band is the 80th percentile of its class's left-out runs, each run "
           "weighing one, as the coverage counts them. Each source weighed one before, so a "
           "source of one or two runs (mostly bug reports about a slowness) weighed as much as "
           "one of 20 and set the band at its own runs' error: Intel's decode band was one of "
           "llama.cpp#24005's two runs (within 2.2×), its prefill band #20893's one run (within "
           "3.9×), the datacenter class's prefill band one of llm-tracker's two runs (8x H100, "
           "deepseek-v3: within 5.6× over 25 runs). Those bands held 89 % of 75 runs, the \"± N "
           "%\" ones 81 % of 492. Counted by runs, Intel's bands are ± 55 % / ± 67 % and the "
           "datacenter class's ± 38 % / ± 91 %; every class a left-out source can judge prints "
           "\"± N %\", and those bands hold 78 % of 567 runs, Intel's prefill 47 % (18 of 38: "
           "with kyuz0's B70 runs left out the other sources give ± 18 %, and its Gemma 4 prompts "
           "16384 deep read 6.5x). Tried and not kept: each run weighing 1 / (1 + (n - 1) r) in a "
           "source of n runs, r the share of the errors' variance that lies between sources (0.30 "
           "decode, 0.36 prefill): 83 % of 530 and, \"within N×\", 86 % of 37 (Intel's decode "
           "within 2.1×), and Intel's prefill band jumps from ± 95 % to within 3.9× as r goes "
           "from 0.33 to 0.36.\n";
}

void write_moe_prefill_terms(std::ostream& out) {
    out << "- Kept (#34): a routed expert's FLOPs pay a multiplier of their own (pe, per group) "
           "on top of p. mul_mat_id multiplies each expert's share of a micro-batch (ubatch x "
           "top_k / experts tokens: 16 of 512 for Qwen3.6-35B-A3B's 256 experts choosing 8, 128 "
           "of 4096) in tiles sized to that share, which reach less of the matrix rate than a "
           "dense product of the whole micro-batch. With the per-micro-batch term x alone a MoE "
           "prompt's extra cost was all padding, so a larger micro-batch took it away: left "
           "out, deepindeepsea's RTX 5090 Qwen3.6-35B-A3B prompts at -ub 2048-8192 read at "
           "1.6-2.2x their measure (11,100-11,900 t/s measured: -ub 2048 and 8192 alike), kyuz0's "
           "V100 MoE prompts at -ub 2048 32768 deep at 2.0-2.5x, and JohannesGaessler's "
           "micro-batch sweeps (llama.cpp#15631, #20586, #22298) up to 1.8x. With pe: the "
           "5090's at 0.97-1.24x (median miss 77 % -> 11 %), the V100's at 1.16-1.32x, the "
           "sweeps' median miss 19 % -> 12 %; every run's prefill left out 19.5 % / 60.7 % -> "
           "16.4 % / 55.1 % (median / p90), NVIDIA's median 24 % -> 19 %, Apple's 17 % -> 11 %; "
           "decode unchanged. A group no MoE prompt measures takes the value pooled over every "
           "group; the datacenter group's one MoE prompt (AUGMXNT's DeepSeek-V3 on 8 H100s) would "
           "set its own alone (68, an A100's qwen3-30b-a3b prompt then slower than a V100's), so "
           "that group keeps none (0). The no-matrix-units class's prefill band then fell from "
           "within 2.2x to "
           "± 96 %, so its runs count in the narrow bands' tally and the \"within N×\" one is "
           "Intel's and the datacenter's alone (89 %).\n"
           "- Kept (#34): a parent coefficient (parent_pins) no run of the merged rows measures "
           "pins nothing: with kyuz0's V100 runs left out, the datacenter group's attention "
           "multiplier, which only they measure deep in a cache, had pinned the V100's at 0 "
           "above its floor (1). It now takes the value pooled over every group: the V100's "
           "MoE prompts 32768 deep 2.0-2.5x -> 1.9-2.4x left out (before pe), every run "
           "unchanged at the precision shown.\n"
           "- Kept (#34): GCN (Vega 20: an MI50) multiplies Q4_0 and Q4_1 at its dp4a rate and "
           "every other quantized type at half of it (quantized_tflops; llama.cpp#11931, "
           "test-backend-ops MUL_MAT on an MI60: \"Q4_0 or Q4_1 quants ... almost twice much "
           "compute available\"; kyuz0's 2x MI50 reads qwen3-14b at 570.15 t/s as Q4_0 and "
           "286.58 as Q4_K_S). With pe: the class's prefill left out 30 % / 163 % -> 19 % / 83 % "
           "(median / p90; the MI50's runs 1.7-6.2x -> 1.0-6.2x, median miss 194 % -> 83 %), "
           "every run's 16.4 % / 55.1 % -> 16.6 % / 56.2 % (the shared terms moved; 56.4 % with "
           "the "
           "datacenter group's pe at 0). A Tesla "
           "P100 (no dp4a) is unchanged.\n"
           "- Tried and not kept (#34): an Intel GPU's attention through heads wider than 256 "
           "(Gemma 4's global layers) at its FP32 shader rate, an eighth of the XMX one "
           "(ggml-vulkan's scalar flash-attention shader: llama.cpp#14509, #25207): kyuz0's Arc "
           "Pro B70 gemma-4 prompts 16384 deep moved from 6.5-6.7x to 6.3-6.5x their measure "
           "left out. They take about 70 ms a token (12.2 t/s for gemma-4-31b), which at its "
           "10.7 GFLOP of wide-head attention a token is 0.15 TFLOPS, under 1 % of the FP32 "
           "rate: no device figure says so, and the one source that measures it is the one left "
           "out.\n";
}

// The twenty-second session's prompt-at-depth and datacenter work (#34, speed34zh).
void write_geforce_attention(std::ostream& out) {
    out << "- Kept (#34): a GeForce RTX card reads attention at 1 / 1.5 of its FP16-accumulate "
           "rate (attention_tflops). llama.cpp accumulates KQ, half of attention's FLOPs, in "
           "FP32, which GeForce runs at half rate (the stored fp16_tflops), and KQV in FP16 at "
           "the full rate: with flash attention the CUDA MMA kernel's KQ accumulator is float "
           "and its VKQ one half2 (fattn-mma-f16.cuh mma_tile_sizes, ggml-org/llama.cpp "
           "01c68426), without it llama-graph.cpp sets KQ's product to GGML_PREC_F32 for every "
           "model (cuBLAS CUBLAS_COMPUTE_32F). Workstation, datacenter and GB10 cards run both "
           "at the full rate. The NVIDIA group's attention multiplier was shared by jiegec's "
           "RTX 4090 prompts 8192-65536 deep (read too fast, 1.13-1.85x their measure left out) "
           "and ggml-org's DGX Spark prompts 4096-32768 deep (too slow: qwen3-coder-30b-a3b "
           "0.53-0.85x, glm-4.7-flash 0.52-0.84x); with the GeForce rate jiegec's left-out "
           "median went from 22.1 % to 17.0 % (glm-4.7-flash 1.30-1.57x -> 1.09-1.24x), the "
           "Spark's glm-4.7-flash 0.75-1.06x, NVIDIA's fitted multiplier from 5.18 to 3.63. "
           "Every run's prefill left out 16.4 % / 51.7 % -> 16.2 % / 49.7 % (median / p90), the "
           "nvidia class's 17.4 % / 43.7 % -> 16.5 % / 32.8 %, runs at a depth 22.6 % / 57.7 % "
           "-> 20.4 % / 59.0 %; but nvidia_unified's 16.5 % / 59.4 % -> 18.3 % / 74.3 % (the "
           "Spark's qwen2.5-coder-7b and gemma-3-4b, read too fast empty already at 2.0x and "
           "1.55x, read faster deep) and the V100's 31.4 % / 69.9 % -> 33.1 % / 79.9 % (its "
           "source left out, it takes the attention multiplier pooled over every group). Decode "
           "unchanged.\n"
           "- Tried and not kept (#34): a datacenter card's prompts on the GeForce group's "
           "coefficients (speed_group), as one source (XiongjieDai, May 2024) measures 23 of the "
           "class's 25 prompts and with it left out AUGMXNT's two slow runs (DeepSeek-V3 on 8 "
           "H100s, b4418; Llama 3.1 405B IQ2_XXS on an H200) set the group's terms: its Q4_K_M "
           "prompts read at 0.49-0.61x left out. On the GeForce terms they read at 1.4-2.7x "
           "(the A100's at 1.37-1.68x, the H100's at 2.4-2.7x), the class's median 31.7 % -> "
           "68.2 %, every run's prefill 16.2 % / 49.7 % -> 16.9 % / 66.6 %: MMQ on these cards "
           "reaches a far smaller share of the rate than on a GeForce card's doubled FP16 "
           "figure, the H100 (mma.sync, no wgmma path in llama.cpp) less than the A100.\n";
}

void write_power_share(std::ostream& out) {
    out << "- Kept (#34): a card short of the power its matrix rate needs reads a prompt at the "
           "clock its board power sustains (sustained_clock_share: min(1, board power / (1.2 W "
           "x its matrix TFLOPS)); `board_power_w` in data/gpus, NVIDIA's rated board power, "
           "given for the GeForce cards the fit uses and every NVIDIA workstation card; a GPU "
           "without it runs at its full rate). The RTX 6000 Ada (142 SMs of AD102, 364.25 "
           "TFLOPS, 300 W) read llama-3.1-8b's prompt at 0.71x the RTX 4090's (128 SMs, 330.4 "
           "TFLOPS at the full FP16-accumulate rate, 450 W) as FP16 and 0.81x as Q4_K_M "
           "(XiongjieDai, May 2024), where the rates say 1.10x. At 1.2 W a TFLOPS the 6000 Ada "
           "sustains 69 % of its rate and the 5000 Ada (261.12 TFLOPS, 250 W) 80 %; every other "
           "card of the fit all of it. Left out, the workstation class's prompts went from 37 % "
           "/ 96 % to 19 % / 49 % (median / p90), the 6000 Ada's from 1.53-2.28x to 1.15-1.61x "
           "their measure and the 5000 Ada's from 1.17-1.66x to 0.99-1.37x; every run's prefill "
           "from 16.4 % / 51.7 % to 16.3 % / 49.3 %, NVIDIA's GeForce class from 17.4 % to "
           "17.7 % at the median (the shared terms moved); decode unchanged. Tried: 1.35 W "
           "(the 4000 Ada and the RTX PRO 6000 Blackwell capped too: the workstation class 24 % "
           "/ 37 %, every run 16.8 % / 49.3 %) and 1.5 W (the RTX 4090 and 5090 capped: every "
           "run 17.4 % / 56.8 %). One figure for every architecture: Ampere's 8 nm cards draw "
           "more a TFLOPS, but none has less than 1.69 W a TFLOPS to spend (an RTX A5500), so "
           "none is capped. Not given: datacenter cards (HBM; their MMQ reaches a smaller share "
           "of the rate, where power would cap an H100 PCIe at 39 %), the DGX Spark (GB10's "
           "power is the whole chip's), AMD, Intel and Apple.\n";
}

// #34's Intel runs after the Xe2 position cost: an Alchemist card's prompt on the shaders (tried),
// and where the decode misses sit, with the figures.
void write_intel_trials(std::ostream& out) {
    out << "- Tried and not kept (#34): an Alchemist Arc (A-series) multiplies on its vector "
           "engines. ggml-vulkan turns on cooperative matrices for an Intel GPU only from Xe2 on "
           "(ggml_vk_khr_cooperative_matrix_support since llama.cpp#14001: \"Only allowing "
           "Xe2/Xe3 GPU ... since older hardware (ex. Arc A770) has performance regressions\"; "
           "ggml-org/ggml ae72070f, d99724f2), and an A770's Vulkan device line reads \"matrix "
           "cores: none\" (llama.cpp#17628). At its vector FP32 rate (17.2 of its 137.6 TFLOPS), "
           "llama.cpp#20893's 2x Arc A770 qwen3-30b-a3b-instruct-2507 Q4_K_M pp512 (Vulkan b7548) "
           "read at 0.64x its measure left out, not 3.94x. Alone, it left Intel's attention "
           "multiplier, in a fit without kyuz0's Arc Pro B70 runs (Intel's only prompts deep in a "
           "cache), to the few per cent of time attention takes in an empty prompt: those prompts "
           "16384 deep read at 1.8-7.9x their measure (Gemma 4's at 43x; 0.52-0.62x before, the "
           "A770's prompt "
           "having pulled the multiplier up; holding a multiplier no run measures at the value "
           "pooled over every group: 1.8-6.4x), every run's prefill left out 15.9 % / "
           "46.4 % to 16.3 % / 54.0 % (median / p90). With Intel's attention at the vector rate "
           "too (the B70's reaches about 2.4 TFLOPS of attention in sample: a multiplier of 77 on "
           "the XMX rate, 9.4 on the vector one, the other groups' 1-11): 0.43-0.72x (Gemma 4's "
           "5.5x, from 6.3-6.5x), every run's "
           "prefill 15.87 % / 46.41 % to 16.05 % / 46.77 % (runs past 35 % 92 to 90; the "
           "datacenter group's median 31.7 % to 27.0 %, the A770's prompt no longer moving the "
           "shared terms; every other class's runs 44.7 % to 43.2 % at p90, the same at the "
           "median), but Wesley-Jakob-Gilbert's B70 prompts 7 % to 10 % at the median left out: "
           "one quantized multiplier for a B70's XMX products and an A770's dp4a shader ones. "
           "Decode unchanged.\n"
           "- Where Intel's decode error sits (#34, left out, after the Xe2 position cost): 10 of "
           "its 35 runs miss by more than 35 %, five of them Wesley-Jakob-Gilbert's (b9739, Mesa "
           "26.0.3: Q8_0, Q2_K, MXFP4, Nemotron Nano 9B v2 and Gemma 3 12B at 1.5-1.9x their "
           "measure). The position cost adds nothing there (64 positions a layer at depth 0: "
           "47 us of llama-3.1-8b's 23.8 ms), and the builds take one path: "
           "ggml_vk_should_use_mmvq "
           "runs an Intel product of k >= 2048 on Linux on MMVQ for every type but Q4_0 and Q5_1 "
           "at b9039 and b9739 alike (llama.cpp#23056, b9452, moved only Q2_K, Q3_K and Q6_K "
           "below that k). The same machine's SYCL build (llm-inference-SYCL.md, b9739) is as "
           "slow for two: Nemotron Nano 9B v2 at 22.14 t/s (Vulkan 19.19) and gpt-oss-20b at "
           "50.38 (43.13), a Mamba-2 scan and an MXFP4 MoE the B70 runs slowly on either backend. "
           "Q8_0 decodes at 20.31 t/s on Vulkan and 56.00 on SYCL; llama.cpp#24002 finds every "
           "8-bit type 2.3-3.7x slower than Q6_K on an Arc A770 under Vulkan. The fit's other "
           "Q8_0 B70 decode (kyuz0's Qwen3.5-9B, printed Q8_0) is Unsloth's UD-Q8_K_XL, 12.07 GiB "
           "where Q8_0 would be 8.86: about 41 % of its weights BF16, which the B70 reads at "
           "83-87 % of its bandwidth without unpacking, so Intel's unpacking cost sees a cheaper "
           "Q8_0 than Wesley-Jakob-Gilbert's. Not modelled: a per-type cost for one class is a "
           "free parameter per class.\n";
}

// The twenty-third session's prompt change (#34, speed34zk): XiongjieDai's 2024 CUDA prompts
// read on the path llama.cpp took then, and what was tried beside it.
void write_cublas_era(std::ostream& out) {
    out << "- Kept (#34): a quantized prompt on an NVIDIA GPU with FP16 tensor cores, run by "
           "llama.cpp's CUDA backend before b3216 (a818f3028, llama.cpp#8075: \"by default "
           "mul_mat_q instead of FP16 cuBLAS GEMM is used\"), reads as an FP16 file's "
           "(fp16_gemm_prompt: the FP16 rate and multiplier, no unpacking term e) plus the "
           "conversion each micro-batch: the quantized bytes read, 2 bytes a weight written and "
           "read by the GEMM, at the shared weight-read multiplier r (no new coefficient). "
           "XiongjieDai's May 2024 runs (b2824-b2843) measure it: llama-3-8b's pp512 takes "
           "17.1 ms more a micro-batch as Q4_K_M than as F16 on an RTX 4090, where the "
           "conversion's 18.3 GB take 18.2 ms at 1008 GB/s (an RTX 4080 23.5 and 25.5 ms, an "
           "RTX A6000 21.9 and 23.8, an RTX 4000 Ada 44.8 and 50.8). The cluster of prompts on "
           "several GPUs read too fast was this, not the split: that source's 70B Q4_K_M "
           "prompts read the same on one card and four (A100 PCIe 744 and 771 t/s, H100 PCIe "
           "1013 and 1048, RTX A6000 482 and 496), its 8B Q4_K_M ones on one card as fast as its "
           "70B ones on 2-8 (1.15-1.42x their measure left out on GeForce and workstation cards, "
           "its F16 prompts 0.82-1.13x), and a pp512 at -ub 512 is one micro-batch that the "
           "GPUs of a layer split run one after another, as prefill_seconds sums them (the "
           "source's README: 8B Q4_K_M pp512 at 7139, 7004, 6749 and 6172 t/s on 1, 2, 4 and 8 "
           "RTX 4090s, 1.4-1.6 ms a micro-batch for each GPU added; its pp1024-pp8192, more "
           "micro-batches than GPUs, overlap: 8545 t/s at pp1024 on two). The datacenter cards "
           "the fit uses now have a rated board power (data/gpus, sustained_clock_share), as "
           "their 2024 prompts are FP16 GEMMs: an H100 PCIe (350 W, NVIDIA product brief "
           "PB-11133-001: \"maximum thermal design power (TDP) level of 350 W\") sustains 39 % of "
           "its 756.5 TFLOPS. Left out, the GeForce and workstation Q4_K_M prompts went from "
           "1.05-1.74x to 0.86-1.50x their measure, the datacenter ones from 0.49-1.05x to "
           "0.90-2.12x (the A40's 70B at 1.84-2.08x and the four A100 SXMs' at 2.12x: that "
           "source's A40 reads 70B Q4_K_M at 209-237 t/s and F16 at 611, where the same GA102 "
           "as an RTX A6000 reads them at 482-496 and 510; the 4x A100 SXM's 469 t/s is half its "
           "one card's 818), its F16 ones from 0.87-1.93x to 0.65-1.14x. Every run's prefill "
           "left out went from 15.87 % / 46.41 % to 13.36 % / 46.91 % (median / p90; 92 runs "
           "past 35 % to 74), XiongjieDai's from 15 % / 46 % to 8 % / 35 %, the GeForce class's "
           "from 16 % / 34 % to 12 % / 33 %, the workstation class's from 17 % / 45 % to 7 % / "
           "20 %, the datacenter class's from 32 % / 93 % to 14 % / 108 %, Intel's from 21 % to "
           "16 % at the median, runs on several GPUs from 26 % / 77 % to 19 % / 101 %; but the "
           "V100's from 31 % / 79 % to 37 % / 129 % and the DGX Spark's p90 from 73 % to 102 %: "
           "left out, a V100 prompt takes the datacenter group's coefficients (parent_pins), "
           "whose per-layer cost q (827 us a micro-batch) had held XiongjieDai's residual and "
           "is now 0, and the GeForce group's quantized p, no longer pulled up by the 2024 "
           "runs, reads the Spark's small models faster (gemma-3-4b 1.6-1.8x to 1.9-2.0x). "
           "Decode unchanged. The conversion alone, without the datacenter board powers: 13.92 % "
           "/ 51.07 % (the datacenter class 37 % / 112 %).\n"
           "- Tried and not kept (#34): a V100's quantized prompt read by the same rule "
           "(ggml_cuda_should_use_mmq sends it to cuBLAS from MMQ_DP4A_MAX_BATCH_SIZE, 64 "
           "tokens, today): every run's prefill left out 13.36 % / 46.91 % to 13.59 % / 53.80 %, "
           "the V100's 37 % / 129 % to 64 % / 160 %. Every expert product of a prompt one expert "
           "at a time on CUDA and HIP before llama.cpp#13199 (merged 2025-04-30; "
           "ggml_cuda_mul_mat_id copied the ids to the host, synchronised and looped over the "
           "experts: ggml-org/ggml b5ed2968; lone_expert_products): AUGMXNT's DeepSeek-V3 pp512 "
           "on 8 H100s (b4418) went from 2.1x to 0.85x its measure left out, but the "
           "datacenter group's expert cost x, which that run had set, fell to 0 and the V100's "
           "prompts that borrow it left out read at 2-5x (the V100's median 37 % to 100 %; "
           "every run's 13.51 % / 52.61 %).\n";
}

// The twenty-third session's (#34): the output head a tied model reads, the cells a sliding
// layer's flash attention runs over, and two terms tried and not kept.
void write_head_and_window(std::ostream& out) {
    out << "- Kept (#34): a decoded token reads a tied output head whole. llama.cpp's output layer "
           "multiplies by token_embd where the embeddings are tied (the copy an offloaded head "
           "holds: ModelParts' output_duplicate), but the placement counted only output_weights, "
           "0 for a tied model, in what a token reads; and a prompt's FLOPs took the input "
           "table out as a lookup, the head's product with it. A run's file holds token_embd "
           "once, so its size is now matched without the GPU's copy. The DGX Spark's "
           "gemma-3-4b Q4_0 decodes (ggml-org benches/dgx-spark.md) read at 1.40-1.57x their "
           "measure left out, 1.05-1.06x now; kyuz0's R9700 gemma-3-4b Q3_K_S 1.75-2.12x -> "
           "1.16-1.24x. Every run's decode left out 11.0 % / 37.5 % -> 12.5 % / 33.9 % "
           "(median / p90; in sample 8 % / 32 % -> 7 % / 26 %), nvidia_unified's 6.3 % / "
           "42.2 % -> 5.5 % / 11.6 %; but NVIDIA GeForce's median 10.7 % -> 15.3 %: the Spark's "
           "gemma runs had held the group's per-layer cost up (39.8 -> 30.4 us), and with "
           "pendakwahteknologi's RTX 5090 runs left out its qwen2.5-3b decodes read at 1.26-1.57x "
           "(1.03-1.17x before).\n"
           "- Kept (#34): a sliding-window layer's prompt attention runs over every cell its cache "
           "holds, the window and a micro-batch (llama_sliding_cells: 1024 + 2048 for Gemma 3 at "
           "-ub 2048), on CUDA, HIP and Vulkan: their kernels trim only a tail of fully masked "
           "cells (flash_attn_mask_to_KV_max, ggml-cuda/fattn-common.cuh at ggml-org/ggml "
           "30a0c4c9), and a wrapped ring holds a query's cells anywhere. Metal marks and skips "
           "fully masked blocks (kernel_flash_attn_ext_blk, llama.cpp#16372): the window alone "
           "(attention_skips_masked_cells). With the tied head above, every run's prefill left "
           "out 16.0 % / 46.4 % -> 16.2 % / 43.2 %, nvidia_unified's 18.4 % / 72.7 % -> "
           "17.5 % / 48.5 %, AMD's 14.6 % / 42.3 % -> 13.6 % / 35.9 %; kyuz0's R9700 Gemma 3 "
           "prompts 16384-32768 deep 1.26-1.71x -> 1.01-1.41x, the Spark's gemma-3-4b "
           "1.59-1.81x -> 1.31-1.49x. Skipped on Metal too, the M2 Ultra's gemma-3-4b prompts "
           "deep read at 0.82-0.88x (0.89-0.94x with Metal's skip).\n"
           "- Tried and not kept (#34): MMQ's stream-k re-reading each weight tile once per "
           "column tile of tokens (mmq_x, 128) where the tiles the SMs hold at once overflow L2, "
           "as one shared coefficient on a dense weight's read time per prompt token. Fitted at "
           "0.0018 (1 / 563): the Spark's qwen2.5-coder-7b Q8_0 prompts moved from 2.06x to "
           "1.94x, every run's prefill p90 left out 46.7 % -> 54.8 % (the datacenter group's "
           "median 27 % -> 75 %). It needs each GPU's L2 (GB10's is not in data/gpus), not one "
           "figure. Not kept either: one decode cost per token for every device (graph launch, "
           "sync, the logits' copy), fitted at 316 us: decode left out 12.5 % / 33.9 % -> "
           "12.5 % / 34.0 %.\n";
}

void write_mmq_reread(std::ostream& out) {
    out << "- Kept (#34): MMQ re-reads a dense FFN's quantized weights for every 128-token tile "
           "past the first where a round of its tiles overflows L2 (mmq_reread_bytes: "
           "`l2_cache_mib` and `sm_count` in data/gpus, given for the DGX Spark, RTX 4090, RTX "
           "5090 and RTX PRO 6000 Blackwell). Its stream-k loop (ggml mmq.cuh mul_mat_q at "
           "de71a099) runs one CTA per SM with the token tile innermost, so each SM re-reads its "
           "128 weight rows for every token tile; the rows all SMs hold, the tile's activations "
           "and the round's outputs stay in L2 only where they fit. The bytes are read at their "
           "full bandwidth time, stated (SpeedModel::mmq_reread); at the shared r they took r "
           "from 0.87 to 0.94 and XiongjieDai's 2024 conversion reads to 0.71-0.84x left out. "
           "The Spark (24 MiB, 48 SMs) re-reads qwen2.5-coder-7b's Q8_0 FFN 15 times a -ub 2048 "
           "micro-batch: its prompts at depths 0-32768 went from 2.37-1.31x to 1.28-1.05x their "
           "measure left out, nvidia_unified's prefill from 18.0 % / 60.9 % to 14.9 % / 50.6 %, "
           "every run's from 14.22 % / 40.73 % to 14.16 % / 38.08 % (59 past 35 %, 63 before); "
           "gemma-3-4b's Q4_0 products fit (1.43-1.61x, unexplained). Three XiongjieDai 70B "
           "Q4_K_M prompts (A40, 4x A40, 4x A100 SXM pp512) are flagged outliers in their notes: "
           "of the source's 24 such runs they alone rise through pp8192 at 2-14 % spreads, as its "
           "flagged F16 runs do (every run's prefill 14.33 % / 41.90 % -> 14.22 % / 40.73 %).\n";
}

// The twenty-fifth session's (#34): the output head in a prompt's FLOPs, and Intel's attention.
void write_prompt_trials(std::ostream& out) {
    out << "- Tried and not kept (#34): a prompt token without the output head's product. A "
           "batch that asks for no logits outputs its last token alone (llama_batch_allocr::init, "
           "src/llama-batch.cpp: \"return the output only for the last token\"), as llama-bench's "
           "pp does through llama_batch_get_one, so neither embedding table is a per-token "
           "product of a prompt (model_flops took vocab x hidden out once for a tied model, twice "
           "for an untied one). Every run's prefill left out went from 13.55 % / 36.15 % to "
           "13.10 % / 37.96 % (median / p90; 54 -> 57 runs past 35 %): Apple's from 14.4 % / "
           "29.6 % to 12.4 % / 32.0 % (3 -> 7 past), Intel's from 19.2 % / 50.1 % to 19.9 % / "
           "52.2 % (kyuz0's B70 prompts 16384 deep 0.68 -> 0.58x), the V100's from 27.7 % / "
           "97.3 % to 25.8 % / 103.1 % (9 -> 6 past; gemma-4-e4b pp512 0.64 -> 0.75x), AMD's "
           "from 12.7 % to 11.5 % at the median. The per-layer prompt costs took up what the "
           "head had carried (NVIDIA 110 -> 172 us a micro-batch, Apple 89 -> 262, Intel 371 -> "
           "1003): the head's FLOPs stand in for a per-model cost the model does not name. "
           "Decode unchanged.\n"
           "- Tried and not kept (#34): an Intel GPU's flash attention at its vector engines' rate "
           "(1/8 of XMX's). ggml-vulkan takes its KHR_coopmat attention shader only where the "
           "driver offers a 16x16x16 FP16 shape (get_fa_tuning_params at ggml-org/ggml 6e32a618), "
           "and Intel's XMX attention kernels came after kyuz0's B70 runs (b9039): llama.cpp#24406 "
           "(June 2026) is \"an additional code path for devices with supported XMX hardware\". "
           "Intel's attention multiplier went from 76.7 to 9.6 (AMD's 8.5, the V100's 9.2), but "
           "the runs left out barely moved: every run's prefill 13.55 % / 36.15 % -> 13.55 % / "
           "36.37 % (54 -> 53 past 35 %), Intel's 19.2 % -> 19.2 %. kyuz0's B70 gemma-4 prompts "
           "16384 deep (6.7-7.1x left out, 10x in sample) read 15x slower on Vulkan than on SYCL "
           "at the same build (gemma-4-31b 12.20 and 179.87 t/s), unexplained.\n";
}

}  // namespace

void write_fit_trials(std::ostream& out) {
    write_prefill_trials(out);
    write_volta_trials(out);
    write_delta_net_trials(out);
    write_xe2_mmvq_trial(out);
    write_xe2_kv_position_trial(out);
    write_intel_trials(out);
    write_flash_attn_trials(out);
    write_bandwidth_floor(out);
    write_bandwidth_pin(out);
    write_moe_prefill_terms(out);
    write_band_weights(out);
    write_geforce_attention(out);
    write_power_share(out);
    write_decode_cluster_trials(out);
    write_cublas_era(out);
    write_head_and_window(out);
    write_mmq_reread(out);
    write_prompt_trials(out);
    write_prefill_p90_trials(out);
    write_lone_expert_sort_trials(out);
    write_gcn_trials(out);
}

}  // namespace canitrun::tools
