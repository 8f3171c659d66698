#pragma once
// The quick estimate cut into the pieces a runtime places on devices: the input embedding, each
// repeating layer (its weights, its routed experts among them, its KV cache) and the output head.
// The pieces add up to the quick estimate's weights and KV cache exactly, so a split over one
// GPU gives the page's figure.
//
// Weights are the published parameter count at the quantization's rate (as in estimate()), or a
// model file's exact bytes (EstimateOptions::weights_bytes_override), shared out over the pieces in
// proportion to the parameters the architecture gives each. Layer order: dense layers before MoE
// layers (DeepSeek's first_k_dense), and the rarest layer kind spread evenly through the stack
// (Qwen 3.5: every fourth layer is full attention).

#include <cstdint>
#include <optional>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/estimate.hpp"

namespace canitrun {

struct LayerPart {
    LayerKind kind = LayerKind::full;
    Bytes weights = 0;         // everything in the layer, routed experts included
    Bytes routed_experts = 0;  // the part llama.cpp's --n-cpu-moe / -ot exps=CPU moves to RAM
    Bytes active_weights = 0;  // what one token reads: routed experts at top-k / experts
    Bytes kv_cache = 0;
    Bytes recurrent_state = 0;  // linear-attention / SSM state (the llama.cpp rule; the quick
                                // rule leaves it to the overhead)
    std::size_t group = 0;      // index into the model's arch.layer_groups
    // The layer's largest weight tensor, and its largest routed-expert tensor (the llama.cpp
    // rule): what the first GPU copies in for a prompt batch when the layer (or its experts)
    // stays in host memory.
    Bytes largest_tensor = 0;
    Bytes largest_expert_tensor = 0;

    bool operator==(const LayerPart&) const = default;
};

// The buffers llama.cpp allocates besides weights and caches (the llama.cpp rule). Under the
// quick rule there are none: every device adds overhead_percent of its share instead.
struct RuntimeBuffers {
    Bytes compute = 0;          // on every device that runs layers, RAM included
    Bytes attention_phase = 0;  // the graph's peak before its output phase (llamacpp_engine)
    Bytes output_phase = 0;     // the CPU backend's output phase, what `compute` is at least
    // One DeepSeek Sparse Attention layer's zero-filled top-k leaf for a ubatch: `compute` and
    // `attention_phase` hold every MLA layer's (own_dsa_leaves); 0 without DSA.
    Bytes dsa_leaf = 0;
    Bytes host_compute = 0;  // in RAM beside GPUs: the graph's inputs
    // The KQ masks in f32: the copy a CUDA or Vulkan GPU keeps in a build before llama.cpp PR
    // #23764 (`f32_mask_copy`, LlamaCppOptions::f32_mask) or without flash attention.
    Bytes mask_copy = 0;
    bool f32_mask_copy = false;
    Bytes device_mask = 0;  // the masks the layers read (llamacpp_device_mask_bytes)
    // One routed-expert FFN's activations for a ubatch (f32: its input, the gate-up product
    // and the weighted and summed outputs): what lives beside an expert weight the first GPU
    // copies in from RAM (placement.cpp's host-expert rule). 0 for dense models.
    Bytes expert_batch = 0;
    // The output head's matrix (output.weight, or token_embd with tied embeddings) and what
    // lives beside it in its product for a ubatch (the logits and the normed input row, f32):
    // what the first GPU holds when it copies the head in from RAM (placement.cpp).
    Bytes output_head = 0;
    Bytes logits_batch = 0;
    // What CUDA's MoE reduction fusion adds under the logits on a GPU whose backend fuses it
    // (PlacementOptions::gpu_moe_fusion; cuda_fusion.cpp).
    Bytes fused_moe_sum = 0;
    Bytes cuda_pool = 0;  // added to the runtime of a GPU whose backend has it (cuda_pool_bytes)
    Bytes output = 0;     // the logits, in host memory
    Bytes output_duplicate = 0;  // tied embeddings: the copy of token_embd a GPU output needs
    // --split-mode tensor: the largest partial sum the Meta device reduces between GPUs, one
    // ubatch's f32 [n_embd, n_tokens] (routed experts: [n_embd, n_expert_used, n_tokens]), of
    // which each GPU allocates one per reduction step (tensor_split.hpp).
    Bytes partial_sum = 0;

    bool operator==(const RuntimeBuffers&) const = default;
};

struct ModelParts {
    Bytes input_weights = 0;   // token embeddings (and any vision tower)
    Bytes output_weights = 0;  // the output head (0 when tied to the embeddings)
    std::vector<LayerPart> layers;
    std::uint64_t overhead_percent = kDefaultOverheadPercent;
    // Set by the llama.cpp rule: the input embedding stays in RAM (llama.cpp keeps token_embd
    // on the host), the buffers above are placed per device and overhead_percent is 0.
    std::optional<RuntimeBuffers> buffers;
    // Units llama.cpp counts among -ngl's and -ts's that hold nothing in this plan: the MTP
    // (nextn) blocks a GGUF file carries past the stack (plan_parts sets it; Placement keeps it
    // for the printed line, launch_command's llamacpp_gpu_units).
    std::uint64_t idle_units = 0;

    Bytes weights() const;
    Bytes kv_cache() const;
    Bytes recurrent_state() const;

    bool operator==(const ModelParts&) const = default;
};

// The buffers of a device that runs all but `absent` of the MLA layers: ggml-alloc allocates
// a graph's leaves before its first node, and the scheduler gives each DSA top-k leaf to the
// backend of the layer that reads it (llamacpp_engine.cpp's dsa_bytes), so a GPU's compute
// buffer holds only its own layers'. `b` itself where no leaf is absent (no DSA, or every MLA
// layer on the device), else `own` filled: place() asks it of every GPU, and most models have
// no DSA, so nothing is copied for them.
const RuntimeBuffers& own_dsa_leaves(const RuntimeBuffers& b, std::uint64_t absent,
                                     RuntimeBuffers& own);

Result<ModelParts> model_parts(const Model& model, const Quant& quant,
                               const EstimateOptions& options);

// The same parts at another context (options.context and options.kv_type): only the KV cache of
// each layer is recomputed, so a search over contexts does not rebuild the weights each step.
// `parts` must come from model_parts() for this model.
Result<ModelParts> parts_at_context(ModelParts parts, const Model& model,
                                    const EstimateOptions& options);

}  // namespace canitrun
