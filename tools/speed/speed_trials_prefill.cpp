// docs/SPEED.md's "Known limits": prompt terms tried (#34) on the clusters past prefill's p90
// (speed34zw), with what each did to the left-out figures (written by tools/speed/fit_speed
// through write_fit_trials).
#include <ostream>

#include "speed_report.hpp"

namespace canitrun::tools {

void write_prefill_p90_trials(std::ostream& out) {
    out << "- Kept (#34): a prompt's activation tensors that overflow L2 move through memory "
           "(activation_bytes, stated: SpeedModel::activation_traffic). ggml runs a layer op by "
           "op, each writing its F32 output for the next to read: per layer the hidden state six "
           "times (the two norms' outputs, the attention's and the FFN's output products, the two "
           "residual sums), the query width three times (q, roped q, the attention's output), the "
           "key width three times (k, roped k, v), a gated FFN's width three times (gate, up, "
           "their product), a MoE layer's top-k experts' likewise. A tensor stays in L2 where it "
           "and its op's input fit there together (2 x ubatch x width x 4 bytes); only the DGX "
           "Spark, RTX 4090, RTX 5090 and RTX PRO 6000 Blackwell have their L2 in data/gpus, any "
           "other GPU is taken to hold them. The Spark (273 GB/s, 24 MiB) moves 14.2 MB a token of "
           "gemma-3-4b's at -ub 2048, 52 us of the 175 us its pp2048 takes a token: its Q4_0 "
           "prompts (ggml-org benches/dgx-spark.md) went from 1.50-1.64x to 1.09-1.28x their "
           "measure left out, glm-4.7-flash Q8_0 pp2048 from 1.44x to 1.21x, qwen2.5-coder-7b "
           "pp2048 from 1.29x to 1.07x. Every run's prefill left out went from 13.53 % / 36.14 % "
           "to 12.87 % / 35.55 % (median / p90; runs past 35 % 54 -> 50), nvidia_unified's from "
           "14.8 % to 7.7 % at the median (6 past 35 % -> 0), GeForce's from 12.5 % to 11.3 % (6 "
           "-> 8 past: jiegec's RTX 4090 glm-4.7-flash Q2_K pp1024 1.33x -> 1.38x, qwen3.5-35b-a3b "
           "Q4_K_M pp1024 32768 deep 1.34x -> 1.35x), the workstation class's from 7.7 % to 5.7 %, "
           "AMD's 4 -> 5 past (kyuz0's R9700 ministral-3-14b BF16 pp512 1.34x -> 1.36x); "
           "but the datacenter class's from 13.5 % to 22.8 % (4 past, unchanged): with "
           "XiongjieDai's runs left out the group's prompt terms rest on AUGMXNT's two H100 and "
           "H200 runs and the shared r, which fell from 0.95 to 0.66 as the Spark's reads no "
           "longer carried it, and that fit read the H100 PCIe's llama-3.1-8b pp512 at 0.53-0.66x "
           "(0.86-0.97x before). Decode unchanged. Not kept: a tensor held where it alone fits L2 "
           "(the Spark's gemma-3-4b hidden-state tensors then stay): 13.63 % / 39.06 % (63 past), "
           "that fit with XiongjieDai's runs left out reading its datacenter prompts at "
           "0.26-0.70x; "
           "the term's multiplier fitted (shared) rather than stated: 13.68 % / 36.74 % (56 past)."
           "\n";
}

void write_lone_expert_sort_trials(std::ostream& out) {
    out << "- Kept (#34; speed34xb): a product run one expert at a time (lone_expert_products) "
           "pays the host's sort of the micro-batch's tokens by expert, per token "
           "(SpeedModel::lone_expert_sort_s, gs, shared). ggml_cuda_mul_mat_id (ggml-cuda.cu at "
           "ggml-org/ggml 43419ff0, the V100 runs' b9368) copies the expert ids to the host and "
           "loops over every expert, token and top-k slot between two cudaStreamSynchronize "
           "before it launches a call per expert; TheTom/llama-cpp-turboquant#322 times that "
           "stall at ~9.5 % of a Qwen3 MoE prompt at -ub 512 and ~24.8 % at 2048 (gfx1100). A "
           "larger micro-batch does not spread it: kyuz0's 2x V100 reads Qwen3.6-35B-A3B Q4_K_M "
           "at 804 t/s at pp512 and 837 at -ub 2048 32768 deep. Fitted at 2.0 ns a pass (gc 9.96 "
           "-> 2.36 us a call): every run's prefill left out went from 12.87 % / 35.55 % to "
           "12.94 % / 35.38 % (median / p90; runs past 35 % 50 -> 49), kyuz0's P100 35B-A3B "
           "prompts at -ub 2048 32768 deep from 1.08-1.12x to 0.95-0.98x their measure, the Ryzen "
           "AI Max's qwen3.6-35b-a3b BF16 32768 deep from 1.42x to 1.16x, the datacenter class's "
           "median from 22.8 % to 18.4 %; the class without matrix units' from 19.9 % to 26.0 % "
           "(the P40 micro-batch sweeps of llama.cpp#15631, on MMQ, 1.07-1.22x -> 1.19-1.31x: the "
           "shared terms moved). Decode unchanged. The V100's own prompts left out did not move "
           "(its Qwen3.5/3.6-35B-A3B -ub 2048 32768 deep still 1.87-2.15x): without its runs gs "
           "fits 0, every other host's -ub 2048 prompt being 32768 deep, where its class's "
           "attention multiplier carries the same time. Tried and not kept: a V100's (from 64 "
           "tokens) and a P100's dense quantized products as FP16 cuBLAS GEMMs on weights "
           "converted each micro-batch, as fp16_gemm_prompt reads the 2024 builds "
           "(ggml_cuda_should_use_mmq declines them and ggml_cuda_mul_mat hands them to "
           "ggml_cuda_op_mul_mat_cublas at 43419ff0): 12.65 % / 35.97 % (51 past); the class "
           "without matrix units' prompts better (the P100's qwen3.6-27b 32768 deep 0.53x -> "
           "0.79x, gemma-4-e4b pp512 0.58x -> 0.90x, the MI50's 1.5-2.0x -> 1.3-1.7x), the V100's "
           "median 28 % -> 60 % (its dense Qwen3.6-27B and Gemma 4 E4B 0.57-1.01x -> 1.30-2.04x: "
           "left out it takes the datacenter group's FP16 multiplier, at its floor 1, and the "
           "group's per-layer and recurrent-layer costs, 0 and 1.4 us where its own are 1.4 ms "
           "a layer a micro-batch and 8.1 us).\n";
}

}  // namespace canitrun::tools
