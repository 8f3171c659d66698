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
    std::size_t group = 0;  // index into the model's arch.layer_groups
};

struct ModelParts {
    Bytes input_weights = 0;   // token embeddings (and any vision tower)
    Bytes output_weights = 0;  // the output head (0 when tied to the embeddings)
    std::vector<LayerPart> layers;
    std::uint64_t overhead_percent = kDefaultOverheadPercent;

    Bytes weights() const;
    Bytes kv_cache() const;
};

Result<ModelParts> model_parts(const Model& model, const Quant& quant,
                               const EstimateOptions& options);

// The same parts at another context (options.context and options.kv_type): only the KV cache of
// each layer is recomputed, so a search over contexts does not rebuild the weights each step.
// `parts` must come from model_parts() for this model.
Result<ModelParts> parts_at_context(ModelParts parts, const Model& model,
                                    const EstimateOptions& options);

}  // namespace canitrun
