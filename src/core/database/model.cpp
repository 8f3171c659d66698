#include "canitrun/model.hpp"

#include "canitrun/checked.hpp"

namespace canitrun {

AttentionDims attention_dims(const Model& model, const LayerGroup& group) {
    const Attention& att = model.arch.attention;
    const auto pick = [](std::uint64_t own, std::uint64_t fallback) {
        return own ? own : fallback;
    };
    AttentionDims d;
    d.kv_heads = pick(group.kv_heads, att.kv_heads);
    d.k_dim = pick(group.head_dim, att.head_dim);
    d.v_dim = pick(group.v_head_dim, pick(att.v_head_dim, d.k_dim));
    return d;
}

std::uint64_t active_ffn_width(const Model& m) {
    if (!m.is_moe()) return m.arch.intermediate_size;
    const MoE& e = *m.arch.moe;
    return checked::add(checked::mul(e.experts_per_token, e.expert_intermediate_size),
                        e.shared_expert_intermediate_size);
}

Model all_attention_variant(const Model& model) {
    Model out = model;
    LayerGroup full;
    full.kind = LayerKind::full;
    full.count = model.arch.layers;
    out.arch.layer_groups = {full};
    return out;
}

bool is_all_attention(const Model& model) {
    return count_layers(model, LayerKind::full) + count_layers(model, LayerKind::mla) ==
           model.arch.layers;
}

std::uint64_t count_layers(const Model& model, LayerKind kind) {
    std::uint64_t n = 0;
    for (const auto& group : model.arch.layer_groups) {
        if (group.kind == kind) n += group.count;
    }
    return n;
}

const char* layer_kind_name(LayerKind kind) {
    switch (kind) {
        case LayerKind::full:
            return "full";
        case LayerKind::sliding:
            return "sliding";
        case LayerKind::linear:
            return "linear";
        case LayerKind::ssm:
            return "ssm";
        case LayerKind::mla:
            return "mla";
    }
    return "?";
}

}  // namespace canitrun
