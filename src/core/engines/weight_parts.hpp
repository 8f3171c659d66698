#pragma once
// The one rule that sorts weight tensors into the planner's parts (private to src/core/engines):
// host inputs (token_embd among them) stay in RAM, a tensor of layer N joins that layer (its
// routed experts marked), anything else is the output head. Both the database's layouts typed by
// llama-quantize's rules (llamacpp_parts.cpp) and a model file's own tensors (file_parts.cpp)
// go through it, so the same tensors give the same parts.

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "canitrun/checked.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/model_parts.hpp"

namespace canitrun {

// One tensor as the rule reads it.
struct WeightTensor {
    std::string_view name;
    int layer = -1;  // llama_tensor_layer
    Bytes bytes = 0;
    bool host_input = false;
    bool routed_expert = false;
};

// The weight terms of `model`'s parts from `count` tensors, `at(i)` the i-th; no context in
// them. Throws OverflowError.
template <class At>
ModelParts weight_parts_of(const Model& model, std::size_t count, At at) {
    const auto order = layer_group_order(model);
    ModelParts parts;
    parts.overhead_percent = 0;
    parts.layers.resize(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        parts.layers[i].group = order[i];
        parts.layers[i].kind = model.arch.layer_groups[order[i]].kind;
    }
    Bytes embd = 0;
    Bytes host_inputs = 0;
    Bytes head = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const WeightTensor t = at(i);
        const Bytes b = t.bytes;
        if (t.host_input) {
            host_inputs = checked::add(host_inputs, b);
            if (t.name == "token_embd.weight") embd = b;
        } else if (t.layer < 0 || static_cast<std::size_t>(t.layer) >= parts.layers.size()) {
            parts.output_weights = checked::add(parts.output_weights, b);
            head = std::max(head, b);
        } else {
            LayerPart& l = parts.layers[static_cast<std::size_t>(t.layer)];
            l.weights = checked::add(l.weights, b);
            l.largest_tensor = std::max(l.largest_tensor, b);
            if (t.routed_expert) {
                l.routed_experts = checked::add(l.routed_experts, b);
                l.largest_expert_tensor = std::max(l.largest_expert_tensor, b);
            }
        }
    }
    parts.input_weights = host_inputs;
    RuntimeBuffers buffers;
    if (model.arch.tied_embeddings) buffers.output_duplicate = embd;
    buffers.output_head = model.arch.tied_embeddings ? embd : head;
    parts.buffers = buffers;
    for (auto& l : parts.layers) {
        const Bytes routed_active =
            model.is_moe() && model.arch.moe->experts > 0
                ? checked::mul_div_floor(l.routed_experts, model.arch.moe->experts_per_token,
                                         model.arch.moe->experts)
                : l.routed_experts;
        l.active_weights = checked::add(l.weights - l.routed_experts, routed_active);
    }
    return parts;
}

}  // namespace canitrun
