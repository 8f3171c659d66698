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

}  // namespace canitrun::tools
