#include "canitrun/model_parts.hpp"

#include <algorithm>

#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/param_count.hpp"

namespace canitrun {
namespace {

Bytes layer_kv_bytes(const Model& model, const LayerGroup& group, const EstimateOptions& options) {
    const std::uint64_t elements = cached_elements(model, group, options.context);
    return checked::mul_div_ceil(elements, options.kv_type.block_bytes,
                                 options.kv_type.block_elements);
}

}  // namespace

Bytes ModelParts::weights() const {
    Bytes sum = checked::add(input_weights, output_weights);
    for (const auto& l : layers) sum = checked::add(sum, l.weights);
    return sum;
}

Bytes ModelParts::kv_cache() const {
    Bytes sum = 0;
    for (const auto& l : layers) sum = checked::add(sum, l.kv_cache);
    return sum;
}

Bytes ModelParts::recurrent_state() const {
    Bytes sum = 0;
    for (const auto& l : layers) sum = checked::add(sum, l.recurrent_state);
    return sum;
}

// The layers' phase loses the absent leaves; the whole buffer stays at least its output phase.
const RuntimeBuffers& own_dsa_leaves(const RuntimeBuffers& b, std::uint64_t absent,
                                     RuntimeBuffers& own) {
    if (b.dsa_leaf == 0 || absent == 0) return b;
    own = b;
    const Bytes drop = checked::mul(b.dsa_leaf, absent);
    own.attention_phase = checked::sub(b.attention_phase, drop);
    own.compute = std::max(b.output_phase, checked::sub(b.compute, drop));
    return own;
}

Result<ModelParts> model_parts(const Model& model, const Quant& quant,
                               const EstimateOptions& options) {
    return catch_overflow(
        [&]() -> Result<ModelParts> {
            const Architecture& arch = model.arch;
            const std::uint64_t embedding = checked::mul(arch.vocab_size, arch.hidden_size);
            const std::uint64_t input_params = checked::add(embedding, params_beside_layers(model));
            const std::uint64_t output_params = arch.tied_embeddings ? 0 : embedding;
            // The FFN-only blocks hold every FFN where a model has them (Nemotron-H); of the
            // layers holding one, the first are dense and the rest MoE.
            const std::uint64_t ffn_layers = ffn_layer_count(model);
            const bool ffn_blocks = ffn_layers != arch.layers;
            const std::uint64_t dense_layers =
                arch.moe ? ffn_layers - arch.moe->moe_layers : ffn_layers;

            struct LayerParams {
                std::uint64_t params = 0, routed = 0, active = 0;
            };
            std::vector<LayerParams> shares;
            std::uint64_t all_params = checked::add(input_params, output_params);
            const auto order = layer_group_order(model);
            std::uint64_t ffn_seen = 0;
            for (const std::size_t group : order) {
                const bool has_ffn = !ffn_blocks || arch.layer_groups[group].kind == LayerKind::ffn;
                const bool moe_layer = has_ffn && ffn_seen >= dense_layers;
                ffn_seen += has_ffn ? 1U : 0U;
                const FfnParams ffn = has_ffn ? ffn_params(model, moe_layer) : FfnParams{};
                const std::uint64_t always =
                    checked::add(mixer_params(model, arch.layer_groups[group]), ffn.always);
                const std::uint64_t active_routed =
                    moe_layer && arch.moe
                        ? ffn.routed / arch.moe->experts * arch.moe->experts_per_token
                        : 0;
                shares.push_back({checked::add(always, ffn.routed), ffn.routed,
                                  checked::add(always, active_routed)});
                all_params = checked::add(all_params, shares.back().params);
            }
            if (all_params == 0) {
                return fail(ErrorKind::bad_database,
                            "model '" + model.id + "' has no architecture to split",
                            "give it hidden_size, vocab_size and layer groups in data/models");
            }

            // The published count at the quantization's rate, shared out by architecture
            // parameters.
            const Bytes total =
                options.weights_bytes_override.value_or(weight_bytes(model.params_total, quant));
            const auto share_of = [&](std::uint64_t params) {
                return checked::mul_div_floor(total, params, all_params);
            };
            ModelParts parts;
            parts.overhead_percent = options.overhead_percent;
            parts.input_weights = share_of(input_params);
            parts.output_weights = share_of(output_params);
            for (std::size_t i = 0; i < order.size(); ++i) {
                LayerPart layer;
                layer.kind = arch.layer_groups[order[i]].kind;
                layer.weights = share_of(shares[i].params);
                layer.routed_experts = share_of(shares[i].routed);
                layer.active_weights = share_of(shares[i].active);
                layer.group = order[i];
                parts.layers.push_back(layer);
            }
            // Rounding remainders go to the input embedding, so the pieces sum to the estimate.
            parts.input_weights =
                checked::add(parts.input_weights, checked::sub(total, parts.weights()));
            return parts_at_context(std::move(parts), model, options);
        },
        [&] { return overflow_error("the estimate for " + model.id, "lower --ctx"); });
}

Result<ModelParts> parts_at_context(ModelParts parts, const Model& model,
                                    const EstimateOptions& options) {
    return catch_overflow(
        [&]() -> Result<ModelParts> {
            // Once per group, not per layer: a context search calls this a dozen times per model.
            const auto& groups = model.arch.layer_groups;
            std::vector<Bytes> per_group;
            per_group.reserve(groups.size());
            for (const auto& g : groups) per_group.push_back(layer_kv_bytes(model, g, options));
            // The last shared_kv_layers layers read an earlier layer's cache and keep none.
            const std::uint64_t owners = kv_owning_layers(model);
            for (std::size_t i = 0; i < parts.layers.size(); ++i) {
                LayerPart& layer = parts.layers[i];
                if (layer.group >= groups.size()) {
                    return fail(ErrorKind::bad_input, "model parts do not match model " + model.id);
                }
                layer.kv_cache = i < owners ? per_group[layer.group] : 0;
            }
            return parts;
        },
        [&] { return overflow_error("the estimate for " + model.id, "lower --ctx"); });
}

}  // namespace canitrun
