#pragma once
// The vLLM engine profile: weights at the checkpoint's dtype, a budget of
// gpu_memory_utilization x each GPU's memory, a reserve for activations and CUDA graphs, and the
// rest in KV pages of 16 tokens; reported as the longest context one sequence gets and how
// many sequences fit at the asked context. Tensor parallel divides each layer over T GPUs and
// pipeline parallel the layers over P stages (vllm_layout.hpp picks T x P for a cluster).
// Pure: no I/O.

#include <cstdint>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

// vLLM's default --max-num-seqs for `vllm serve` on a GPU under 70 GiB (V1 engine,
// EngineArgs._set_default_args in vllm/engine/arg_utils.py).
inline constexpr std::uint64_t kVllmMaxNumSeqs = 256;

struct VllmOptions {
    std::uint64_t context = kDefaultContext;        // --max-model-len
    Bytes gpu_memory = 0;                           // each GPU's real byte size
    std::uint64_t gpu_memory_utilization_pct = 90;  // --gpu-memory-utilization 0.9
    std::uint64_t block_size = 16;                  // tokens per KV page
    std::uint64_t max_num_batched_tokens = 8192;    // V1 scheduler default for online serving
    std::uint64_t max_num_seqs = kVllmMaxNumSeqs;   // --max-num-seqs
    std::uint64_t tensor_parallel = 1;              // --tensor-parallel-size
    std::uint64_t pipeline_parallel = 1;            // --pipeline-parallel-size
    // Per stage, the memory of its GPUs where stages differ (mixed hosts); empty: gpu_memory.
    std::vector<Bytes> stage_gpu_memory;
};

// What each GPU of one pipeline stage holds (the stage's T ranks hold the same).
struct VllmStage {
    std::uint64_t first_layer = 0;
    std::uint64_t layers = 0;
    Bytes gpu_memory = 0;
    Bytes budget = 0;
    Bytes weights = 0;
    Bytes activations = 0;
    Bytes runtime = 0;
    Bytes kv_pool = 0;             // budget - the rest; 0 when they do not fit
    Bytes page_bytes = 0;          // one 16-token page of the stage's attention layers
    Bytes per_sequence_fixed = 0;  // recurrent state and capped sliding-window pages
    std::uint64_t blocks = 0;      // pages the pool holds
    Bytes sequence_bytes = 0;      // one sequence of the context: its pages and fixed state
};

struct VllmEstimate {
    Estimate estimate;  // per GPU of the stage that limits: weights, reserves, one sequence's KV
    Bytes budget = 0;   // of that stage's GPUs
    Bytes kv_pool = 0;  // of that stage's GPUs (0 when the weights do not fit)
    Bytes page_bytes = 0;
    Bytes per_sequence_fixed = 0;
    Bytes weights_total = 0;                // the checkpoint as vLLM loads it, all ranks together
    std::uint64_t max_context_one_seq = 0;  // tokens one sequence can hold in the KV pool
    // The longest --max-model-len vLLM takes: the pool's tokens, at most the model's window
    // (vLLM derives max_model_len's ceiling from the config's max_position_embeddings).
    std::uint64_t longest_context = 0;
    std::uint64_t max_sequences = 0;               // sequences that fit at options.context
    std::uint64_t max_num_seqs = kVllmMaxNumSeqs;  // the scheduler's cap on max_sequences
    std::uint64_t tensor_parallel = 1;
    std::uint64_t pipeline_parallel = 1;
    std::vector<VllmStage> stages;
    std::size_t limiting_stage = 0;

    bool fits() const { return max_sequences >= 1; }
};

// vLLM's rules for a tensor-parallel size: the attention heads divide by it, and the KV heads
// divide by it or it by them (each rank then keeps a copy of one KV head).
Result<bool> check_tensor_parallel(const Model& model, std::uint64_t tp);

// The layers of each pipeline stage, as vLLM's get_pp_indices splits them: evenly, with the
// remainder one each to the stages before the last.
std::vector<std::uint64_t> pipeline_layers(std::uint64_t layers, std::uint64_t stages);

// The checkpoint's weight bytes: the quantized Linear layers at the format's linear rate, the
// embeddings in BF16; BF16, FP16 and FP32 at their own rate throughout. GGUF files are refused.
Result<Bytes> checkpoint_weight_bytes(const Model& model, const Quant& quant);

// `vllm serve`'s scheduler defaults for a GPU (EngineArgs._set_default_args): 8192 batched
// tokens and 1024 sequences on a GPU of 70 GiB or more other than an A100, 2048 and 256 on the
// rest, the sequences capped at the tokens.
VllmOptions vllm_serve_defaults(Bytes gpu_memory, bool a100);

Result<VllmEstimate> estimate_vllm(const Model& model, const Quant& quant,
                                   const VllmOptions& options);

// The quantization `vllm serve MODEL` loads without --quantization: the published checkpoint's
// own dtype where the data records one (FP8 for DeepSeek V3), else BF16.
std::string default_vllm_quant(const Model& model);
// The same, as the database's entry.
Result<const Quant*> vllm_default_quant(const Database& db, const Model& model);

}  // namespace canitrun
