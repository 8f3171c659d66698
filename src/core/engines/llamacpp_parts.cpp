#include "canitrun/llamacpp_parts.hpp"

#include "canitrun/layer_kinds.hpp"

namespace canitrun {
namespace {

bool is_routed_expert(const std::string& name) {
    // ffn_{gate,up,down,gate_up}_exps: the tensors -ot exps=CPU and --n-cpu-moe move.
    return name.find("_exps.") != std::string::npos;
}

}  // namespace

Result<ModelParts> llamacpp_parts(const Model& model, const Quant& quant,
                                  const LlamaCppOptions& options) {
    auto tensors = llamacpp_tensors(model, quant);
    if (!tensors) return std::unexpected(tensors.error());
    const auto order = layer_group_order(model);
    try {
        ModelParts parts;
        parts.overhead_percent = 0;
        parts.layers.resize(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            parts.layers[i].group = order[i];
            parts.layers[i].kind = model.arch.layer_groups[order[i]].kind;
        }
        Bytes embd = 0;
        for (const auto& t : *tensors) {
            const int layer = t.tensor.layer;
            if (t.tensor.name == "token_embd.weight") {
                embd = t.bytes;
            } else if (layer < 0 || static_cast<std::size_t>(layer) >= parts.layers.size()) {
                parts.output_weights = checked::add(parts.output_weights, t.bytes);
            } else {
                LayerPart& l = parts.layers[static_cast<std::size_t>(layer)];
                l.weights = checked::add(l.weights, t.bytes);
                if (is_routed_expert(t.tensor.name))
                    l.routed_experts = checked::add(l.routed_experts, t.bytes);
            }
        }
        parts.input_weights = embd;
        RuntimeBuffers buffers;
        if (model.arch.tied_embeddings) buffers.output_duplicate = embd;
        parts.buffers = buffers;
        for (auto& l : parts.layers) {
            const Bytes routed_active =
                model.is_moe() && model.arch.moe->experts > 0
                    ? checked::mul_div_floor(l.routed_experts, model.arch.moe->experts_per_token,
                                             model.arch.moe->experts)
                    : l.routed_experts;
            l.active_weights = checked::add(l.weights - l.routed_experts, routed_active);
        }
        return llamacpp_parts_at_context(std::move(parts), model, options);
    } catch (const OverflowError&) {
        return fail(ErrorKind::overflow,
                    "the estimate for " + model.id + " does not fit in 64-bit byte counts",
                    "lower --ctx");
    }
}

Result<ModelParts> llamacpp_parts_at_context(ModelParts parts, const Model& model,
                                             const LlamaCppOptions& options) {
    auto caches = llamacpp_group_caches(model, options);
    if (!caches) return std::unexpected(caches.error());
    auto compute = llamacpp_compute_bytes(model, options);
    if (!compute) return std::unexpected(compute.error());
    for (auto& l : parts.layers) {
        if (l.group >= caches->size()) {
            return fail(ErrorKind::bad_input, "model parts do not match model " + model.id);
        }
        l.kv_cache = (*caches)[l.group].kv;
        l.recurrent_state = (*caches)[l.group].recurrent;
    }
    if (!parts.buffers) parts.buffers = RuntimeBuffers{};
    parts.buffers->compute = *compute;
    parts.buffers->output = llamacpp_output_bytes(model, options);
    return parts;
}

}  // namespace canitrun
