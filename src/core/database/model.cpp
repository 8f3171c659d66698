#include "canitrun/model.hpp"

#include <string_view>

#include "canitrun/checked.hpp"

namespace canitrun {

AttentionDims attention_dims(const Model& model, const LayerGroup& group) {
    const Attention& att = model.arch.attention;
    const auto pick = [](std::uint64_t own, std::uint64_t fallback) {
        return own ? own : fallback;
    };
    AttentionDims d;
    d.heads = pick(group.heads, att.heads);
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

std::uint64_t routed_expert_width(const Model& m) {
    const std::uint64_t latent = m.arch.moe ? m.arch.moe->latent_size : 0;
    return latent ? latent : m.arch.hidden_size;
}

// FFN-only blocks stay as they are: they are not attention slots, and turning them into
// attention would add layers the model does not have.
Model all_attention_variant(const Model& model) {
    Model out = model;
    LayerGroup full;
    full.kind = LayerKind::full;
    full.count = model.arch.layers - count_layers(model, LayerKind::ffn);
    std::vector<LayerGroup> groups = {full};
    for (const auto& g : model.arch.layer_groups) {
        if (g.kind == LayerKind::ffn) groups.push_back(g);
    }
    out.arch.layer_groups = std::move(groups);
    out.arch.layer_order.clear();
    for (const char c : model.arch.layer_order) {
        const bool digit = c >= '0' && c <= '9';
        const auto g = static_cast<std::size_t>(c - '0');
        const bool ffn = digit ? g < model.arch.layer_groups.size() &&
                                     model.arch.layer_groups[g].kind == LayerKind::ffn
                               : layer_kind_of_letter(c) == LayerKind::ffn;
        out.arch.layer_order += ffn ? (digit ? '-' : c) : '*';
    }
    return out;
}

bool is_all_attention(const Model& model) {
    std::uint64_t all = 0;
    for (const auto& g : model.arch.layer_groups) {
        all += attends_every_token(g) || g.kind == LayerKind::ffn ? g.count : 0;
    }
    return all == model.arch.layers;
}

std::uint64_t mla_v_head_dim(const Architecture& arch, const LayerGroup& group) {
    return arch.attention.v_head_dim ? arch.attention.v_head_dim : group.v_head_dim;
}

std::uint64_t mla_heads(const Architecture& arch, const LayerGroup& group) {
    return group.heads ? group.heads : arch.attention.heads;
}

bool keeps_window(const LayerGroup& group) {
    return (group.kind == LayerKind::sliding || group.kind == LayerKind::mla) && group.window > 0;
}

bool attends_every_token(const LayerGroup& group) {
    return group.kind == LayerKind::full || (group.kind == LayerKind::mla && !keeps_window(group));
}

std::uint64_t ffn_layer_count(const Architecture& arch) {
    std::uint64_t ffn = 0;
    for (const auto& g : arch.layer_groups) ffn += g.kind == LayerKind::ffn ? g.count : 0;
    return ffn > 0 ? ffn : arch.layers;
}

std::uint64_t ffn_layer_count(const Model& model) {
    return ffn_layer_count(model.arch);
}

std::uint64_t count_layers(const Model& model, LayerKind kind) {
    std::uint64_t n = 0;
    for (const auto& group : model.arch.layer_groups) {
        if (group.kind == kind) n += group.count;
    }
    return n;
}

namespace {

// Every kind with its name (the database's "kind") and its letter (layer_order): the one
// table both ways read.
struct KindNames {
    LayerKind kind;
    const char* name;
    char letter;
};
constexpr KindNames kKindNames[] = {
    {LayerKind::full, "full", '*'},     {LayerKind::sliding, "sliding", 'S'},
    {LayerKind::linear, "linear", 'L'}, {LayerKind::ssm, "ssm", 'M'},
    {LayerKind::conv, "conv", 'C'},     {LayerKind::mla, "mla", 'A'},
    {LayerKind::ffn, "ffn", '-'},       {LayerKind::compressed, "compressed", 'D'},
};

}  // namespace

const char* layer_kind_name(LayerKind kind) {
    for (const auto& k : kKindNames) {
        if (k.kind == kind) return k.name;
    }
    return "?";
}

std::optional<LayerKind> layer_kind_of_name(std::string_view name) {
    for (const auto& k : kKindNames) {
        if (name == k.name) return k.kind;
    }
    return std::nullopt;
}

std::string layer_kind_names() {
    std::string out;
    for (const auto& k : kKindNames) out += std::string(out.empty() ? "" : ", ") + k.name;
    return out;
}

std::string layer_groups_text(const std::vector<LayerGroup>& groups) {
    std::string out;
    for (const auto& g : groups) {
        out += (out.empty() ? "" : " + ") + std::to_string(g.count) + " " + layer_kind_name(g.kind);
        if (g.index_head_dim > 0) out += " with indexer";
    }
    return out;
}

char layer_kind_letter(LayerKind kind) {
    for (const auto& k : kKindNames) {
        if (k.kind == kind) return k.letter;
    }
    return '?';
}

std::optional<LayerKind> layer_kind_of_letter(char letter) {
    for (const auto& k : kKindNames) {
        if (k.letter == letter) return k.kind;
    }
    if (letter == 'E') return LayerKind::ffn;  // Nemotron's MoE block
    return std::nullopt;
}

bool is_recurrent(LayerKind kind) {
    return kind == LayerKind::linear || kind == LayerKind::ssm || kind == LayerKind::conv;
}

bool has_parallel_ssm(const LayerGroup& group) {
    return group.kind == LayerKind::full && group.inner_size > 0 && group.state_size > 0;
}

std::uint64_t count_recurrent_layers(const Model& model) {
    std::uint64_t n = 0;
    for (const auto& g : model.arch.layer_groups) n += is_recurrent(g.kind) ? g.count : 0;
    return n;
}

}  // namespace canitrun
