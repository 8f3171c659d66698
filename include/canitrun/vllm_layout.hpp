#pragma once
// vLLM over a cluster: the smallest tensor parallel x pipeline parallel layout whose every GPU
// holds its share (vllm_engine.hpp): the first host alone at the smallest tensor parallel size
// that fits, else one pipeline stage per host with tensor parallel inside each, as vLLM's docs
// advise; and the commands that start it. Pure: no I/O.

#include <cstdint>
#include <string>
#include <vector>

#include "canitrun/cluster.hpp"
#include "canitrun/vllm_engine.hpp"

namespace canitrun {

struct VllmSkip {
    std::uint64_t tensor_parallel = 0;
    std::string why;  // vLLM's rule the size breaks
};

struct VllmLayout {
    bool fits = false;
    VllmEstimate estimate;                 // the chosen layout; when none fits, the largest tried
    std::vector<std::size_t> stage_hosts;  // the host of each pipeline stage
    std::vector<VllmSkip> skipped;         // tensor parallel sizes the model cannot take
    VllmOptions options;                   // as run: the GPU's scheduler defaults, the context
    bool context_capped = false;           // --max-model-len lowered to the model's window
    std::uint64_t asked_context = 0;
    // Past a YaRN model's native window (within its extended one): the scaling factor the line
    // sets through --hf-overrides' rope_parameters (0: none), the context over the window
    // rounded up, as llama.cpp's line (launch_command.cpp) and Qwen's cards have it.
    std::uint64_t yarn_factor = 0;
};

// Whether the layout serves `users` sequences of its context at once (0: one): the weights and
// reserves fit, and the KV pool holds that many.
bool vllm_serves(const VllmLayout& layout, std::uint64_t users);

// The devices vLLM can run on (NVIDIA with CUDA, AMD with ROCm); a host with others is refused.
// `base` gives the context and --gpu-memory-utilization; the scheduler defaults follow the
// smallest GPU (vllm_serve_defaults).
Result<VllmLayout> choose_vllm_layout(const Model& model, const Quant& quant,
                                      const Cluster& cluster, const VllmOptions& base);

// The checkpoint the data records for a format vLLM does not make itself (AWQ, GPTQ, NVFP4);
// nullptr: none is recorded.
const QuantCheckpoint* vllm_checkpoint(const Model& model, const Quant& quant);

// The lines a user types: `vllm serve REPO --tensor-parallel-size T ...`, with `ray start` on
// each host first when the stages span hosts. For AWQ, GPTQ and NVFP4 REPO is the recorded
// checkpoint (a comment line first where it is unconfirmed); with none recorded there is no
// command, only the one comment line that says so and what to do instead.
std::vector<std::string> vllm_launch_lines(const Model& model, const Quant& quant,
                                           const VllmLayout& layout);

}  // namespace canitrun
